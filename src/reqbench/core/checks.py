"""Checks: a command run against a *snapshot* of a workspace, with hidden tests, mapped to a status.

A check never runs in the agent's workspace: it runs on a fresh copy (so it can neither be disturbed by
nor leak anything into the agent's files), with the hidden directory (tests the agent never had) readable
at ``{hidden}``, in the sandbox, without network. Before it runs, the files that steer a test runner
(``DEFAULT_PROTECTED`` plus the check's own ``protected`` globs) are put back as they are in the base
tree -- restored when changed, deleted when new -- and `CheckResult.protected_touched` lists them.

**Plain commands** (``python -m compileall``, a custom verifier) follow ReqMemBench appendix C.2: exit 0
is PASS, exit 1 is FAIL, any other exit code, a start-up failure or a timeout is HARNESS_ERROR -- an
infrastructure problem, never an agent failure, re-evaluated on the frozen submission later. Per-probe
results of a plain command come from a file in the harness-owned output directory (``probes: junit`` at
``{junit}`` or ``probes: json``); such a file is exactly as trustworthy as the command that writes it.

**pytest checks** use the ``{pytest}`` placeholder: the harness's interpreter in safe-path mode
(``-P``), with the guard plugin (``checkguard/reqbench_guard.py``) loaded before any submission code,
plugin autoloading and the cache off, and a harness-side ini file (``-c``) so no pytest configuration is
read from the workspace. The workspace's import roots (`Check.pythonpath`) join ``sys.path`` only after
pytest and the guard are imported, so nothing submitted can shadow either. ``{python} -m pytest`` is
upgraded to ``{pytest}``; any other way of starting pytest is a validation error.

In a pytest check the submission's own code runs in the test process, so the exit code proves nothing
(``os._exit(0)``, rewritten report objects, a forged JUnit file all produce a green exit). The status
comes from positive evidence only: the guard's records, read from a pipe the harness drains (see
`judge_pytest`). This refines C.2 where the paper's rule would let a submission choose its own label:
an exit the submission caused -- a collection/import error (pytest exit 2), an internal error (3), no
tests (5), a process that ended before the session finished -- is the agent's failure (FAIL), not
HARNESS_ERROR; otherwise a broken submission would stay *pending* forever instead of counting as a
failure. HARNESS_ERROR remains for what the harness could not measure: the runner never started (no
``start`` record), a timeout (C.2 lists check timeouts as infrastructure errors), or a usage error
(exit 4) before pytest reached the first point where submission code can run.

Nothing a command prints is evidence: printing "PASSED" changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from reqbench.core.errors import InputError
from reqbench.core.sandbox import ProcessResult, run_sandboxed
from reqbench.core.workspace import copy_tree


class CheckStatus(StrEnum):
    """Outcome of one check (ReqMemBench C.2, refined for pytest checks: see the module docstring)."""

    PASS = "PASS"
    """Plain command: exit 0 (and a non-empty probe report when probes were requested). pytest check:
    the guard saw a finished session in which every test (and every expected test) passed."""
    FAIL = "FAIL"
    """Plain command: exit 1. pytest check: anything short of a PASS that the submission could have
    caused (failed/skipped/missing tests, collection errors, a process that ended early, a tampered
    evidence channel)."""
    HARNESS_ERROR = "HARNESS_ERROR"
    """The harness could not measure: a timeout, a start-up failure, a plain command's exit code other
    than 0/1, a missing/empty probe report of a plain command, a test runner that never started. Not an
    agent failure: the row stays pending until re-evaluated."""
    SKIPPED = "SKIPPED"
    """Not run because an earlier gate decided the outcome (e.g. after Build FAIL); contributes no PASS
    and is not relabelled FAIL."""


PLACEHOLDERS = ("workspace", "hidden", "output", "junit", "python", "pytest")
_PLACEHOLDER_RE = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")
_PYTHON_M_PYTEST = re.compile(r"\{python\}(?:\s+-P)?\s+-m\s+pytest(?=\s|$)")
_BARE_PYTEST = re.compile(r"(?:^|[\s;&|(`])(?:\S*/)?py\.?test(?=$|[\s;&|)`])|-m\s+py\.?test(?=$|[\s;&|)`])")

DEFAULT_PROTECTED = ("**/conftest.py", "**/pytest.ini", "**/.pytest.ini", "**/tox.ini", "**/setup.cfg",
                     "**/sitecustomize.py", "**/usercustomize.py", "**/*.pth")
"""Files that steer Python or pytest before a test runs; always restored from the base tree."""

GUARD_DIR = Path(__file__).resolve().parent / "checkguard"
GUARD_MODULE = "reqbench_guard"
CHANNEL_CAP_BYTES = 20_000_000


def upgrade_pytest_command(command: str) -> str:
    """``{python} [-P] -m pytest`` -> ``{pytest}``; ValueError for any other unguarded pytest start.

    The upgrade keeps suites written against the plain interpreter working; a bare ``pytest`` or
    ``python -m pytest`` would run whatever the workspace or PATH puts first, so it is refused.
    """
    command = _PYTHON_M_PYTEST.sub("{pytest}", command)
    if _BARE_PYTEST.search(command.replace("{pytest}", " ")):
        raise ValueError("starts pytest without the hardened runner: write {pytest} (the harness's "
                         "interpreter, guard plugin, no workspace configuration) instead")
    if command.count("{pytest}") > 1:
        raise ValueError("a check runs {pytest} at most once (one session is one piece of evidence)")
    return command


class Check(BaseModel):
    """One check of a task: a shell command and how to read its result."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Check name, e.g. build, target, regression")
    command: str = Field(description="Shell command; placeholders {workspace} (the snapshot it runs "
                                     "in), {hidden} (hidden directory), {output} (harness-owned "
                                     "output directory), {junit} (JUnit XML path inside {output}), "
                                     "{python} (the harness's interpreter), {pytest} (the hardened "
                                     "test runner; its per-test results are the evidence)")
    timeout_seconds: float = Field(default=600.0, gt=0, description="Wall-clock limit; exceeding it "
                                                                    "is HARNESS_ERROR")
    probes: Literal["junit", "json"] | None = Field(
        default=None, description="Plain commands only: per-probe results from a pytest-style JUnit XML "
                                  "file at {junit} or a JSON object {probe_id: true|false}; null for "
                                  "none. A {pytest} check always has per-test probes from the guard.")
    result_file: str | None = Field(
        default=None, description="Probe report path relative to the output directory (default "
                                  "junit.xml or results.json)")
    pythonpath: list[str] = Field(default_factory=lambda: ["."], description="{pytest} checks: "
                                  "workspace-relative import roots put on sys.path after pytest starts")
    rootdir: Literal["hidden", "workspace"] | None = Field(
        default=None, description="{pytest} checks: pytest's rootdir, which node ids are relative to "
                                  "(default: the hidden directory when there is one, else the workspace)")
    expected_tests: list[str] = Field(default_factory=list, description="{pytest} checks: node ids that "
                                      "must be reported and pass (an id also covers its parametrised "
                                      "cases id[...]); a missing one fails the check")
    protected: list[str] = Field(default_factory=list, description="Extra workspace-relative globs "
                                 "(``**`` any depth, ``*`` within a name) restored from the base tree "
                                 "before the check runs, e.g. tests/**")

    @field_validator("command")
    @classmethod
    def _guarded_runner(cls, value: str) -> str:
        return upgrade_pytest_command(value)

    @field_validator("result_file")
    @classmethod
    def _inside_output(cls, value: str | None) -> str | None:
        if value is not None and (Path(value).is_absolute() or ".." in Path(value).parts):
            raise ValueError("result_file must be a relative path inside the output directory")
        return value

    @field_validator("pythonpath")
    @classmethod
    def _inside_workspace(cls, value: list[str]) -> list[str]:
        for entry in value:
            if Path(entry).is_absolute() or ".." in Path(entry).parts:
                raise ValueError("pythonpath entries are relative paths inside the workspace")
        return value

    @model_validator(mode="after")
    def _probes_of_plain_commands(self) -> Check:
        if self.runs_pytest and self.probes is not None:
            raise ValueError("a {pytest} check's per-test results come from the guard; drop 'probes'")
        return self

    @property
    def runs_pytest(self) -> bool:
        return "{pytest}" in self.command

    def report_name(self) -> str:
        if self.result_file:
            return self.result_file
        return "junit.xml" if self.probes == "junit" else "results.json"


@dataclass
class CheckResult:
    """What a check run established. `probes` maps probe id (pytest node id) to passed."""

    status: CheckStatus
    exit_code: int | None = None
    wall_seconds: float = 0.0
    probes: dict[str, bool] | None = None
    detail: str = ""
    stdout_tail: str = ""
    stderr_tail: str = ""
    protected_touched: list[str] = field(default_factory=list)
    """Protected paths the submission changed, added or removed (restored before the check ran)."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "exit_code": self.exit_code,
                "wall_seconds": self.wall_seconds, "probes": self.probes, "detail": self.detail,
                "stdout_tail": self.stdout_tail, "stderr_tail": self.stderr_tail,
                "protected_touched": list(self.protected_touched)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckResult:
        return cls(status=CheckStatus(d["status"]), exit_code=d.get("exit_code"),
                   wall_seconds=d.get("wall_seconds", 0.0), probes=d.get("probes"),
                   detail=d.get("detail", ""), stdout_tail=d.get("stdout_tail", ""),
                   stderr_tail=d.get("stderr_tail", ""),
                   protected_touched=list(d.get("protected_touched", [])))

    @classmethod
    def skipped(cls, reason: str) -> CheckResult:
        return cls(status=CheckStatus.SKIPPED, detail=reason)


def status_from_exit(exit_code: int | None) -> CheckStatus:
    """Plain commands (C.2): exit 0 PASS, exit 1 FAIL, anything else (incl. no exit code: timeout / no
    start) HARNESS_ERROR."""
    if exit_code == 0:
        return CheckStatus.PASS
    if exit_code == 1:
        return CheckStatus.FAIL
    return CheckStatus.HARNESS_ERROR


def render_command(template: str, values: dict[str, str], *, item: str,
                   raw: frozenset[str] = frozenset({"pytest"})) -> str:
    """Substitute the known ``{name}`` placeholders (shell-quoted, except the already-quoted `raw`
    ones); other braces are left alone."""

    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise InputError(f"placeholder {{{key}}} has no value here", item=item)
        return values[key] if key in raw else shlex.quote(values[key])

    return _PLACEHOLDER_RE.sub(sub, template)


# ---------------------------------------------------------------------------------------------------
# Protected paths


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A workspace-relative glob as a regex over posix relative paths: ``**/`` any directories,
    ``/**`` everything below, ``*`` and ``?`` within one path component."""
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out, i = out + "(?:/.*)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def _entries(root: Path) -> dict[str, tuple[str, bytes]]:
    """Relative posix path -> (kind, content) of every file and symlink below `root` (links not
    followed; bytecode caches skipped, as `copy_tree` drops them)."""
    found: dict[str, tuple[str, bytes]] = {}
    if not root.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        links = [d for d in dirnames if (base / d).is_symlink()]
        dirnames[:] = [d for d in dirnames if d not in links and d not in ("__pycache__", ".git")]
        for name in [*filenames, *links]:
            path = base / name
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = ("link", os.readlink(path).encode())
            elif path.is_file() and not name.endswith(".pyc"):
                found[rel] = ("file", b"")
    return found


def _same(a: Path, b: Path, kind: str) -> bool:
    if kind == "link":
        return os.readlink(a) == os.readlink(b)
    try:
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def _safe_parent(root: Path, rel: str) -> Path:
    """Create the directories of `rel` below `root`, replacing any symlink or file in the way, so a
    restored file can never be written outside `root`."""
    current = root
    for part in Path(rel).parts[:-1]:
        current = current / part
        if current.is_symlink() or (current.exists() and not current.is_dir()):
            current.unlink()
        if not current.exists():
            current.mkdir()
    return current


def restore_protected(snapshot: Path, base: Path, patterns: list[str] | tuple[str, ...]) -> list[str]:
    """Make every path of `snapshot` matching `patterns` identical to `base` (restored if changed or
    removed, deleted if new). Returns the relative paths that differed, sorted."""
    regexes = [glob_regex(p) for p in patterns]
    snap, orig = _entries(snapshot), _entries(base)
    touched: list[str] = []
    for rel in sorted(set(snap) | set(orig)):
        if not any(r.fullmatch(rel) for r in regexes):
            continue
        s, o = snap.get(rel), orig.get(rel)
        if s is not None and o is not None and s[0] == o[0] and _same(snapshot / rel, base / rel, s[0]):
            continue
        touched.append(rel)
        target = snapshot / rel
        if s is not None:
            target.unlink()
        if o is not None:
            target = _safe_parent(snapshot, rel) / Path(rel).name
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            if o[0] == "link":
                os.symlink(os.readlink(base / rel), target)
            else:
                shutil.copyfile(base / rel, target)
    return touched


# ---------------------------------------------------------------------------------------------------
# The guard's evidence channel


@dataclass
class GuardEvidence:
    """The guard records of one session, as read from the channel."""

    started: bool = False
    args_read: bool = False
    conftests: bool = False
    configured: bool = False
    finish_status: int | None = None
    phases: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """node id -> [(when, outcome)] in arrival order."""
    items: list[str] = field(default_factory=list)
    collect_errors: list[str] = field(default_factory=list)
    tampering: list[str] = field(default_factory=list)
    """Why the channel cannot be trusted (empty when it can)."""

    def tests(self) -> dict[str, bool]:
        """node id -> passed: every record for it passed, and a call record exists."""
        ids = list(dict.fromkeys([*self.items, *self.phases]))
        return {i: any(w == "call" for w, _ in self.phases.get(i, ()))
                and all(o == "passed" for _, o in self.phases.get(i, ())) for i in ids}


def parse_guard_records(data: bytes, token: str, *, overflow: bool = False) -> GuardEvidence:
    """Read the guard's JSON lines. Any line that is not a well-formed record with this run's token, a
    second start/args/finish, a record after finish or a ``tampered`` record marks the channel as
    tampered: only the guard and the code it runs with can write to the pipe, and the guard never
    writes such lines."""
    ev = GuardEvidence()
    if overflow:
        ev.tampering.append(f"the evidence channel exceeded {CHANNEL_CAP_BYTES} bytes")
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            ev.tampering.append("an unreadable line on the evidence channel")
            continue
        if not isinstance(rec, dict) or rec.get("t") != token or not token:
            ev.tampering.append("a record without this run's token on the evidence channel")
            continue
        event = rec.get("e")
        if ev.finish_status is not None:
            ev.tampering.append(f"a {event!r} record after the session finished")
            continue
        if event in ("start", "args", "conftests", "configured"):
            flag = {"start": "started", "args": "args_read"}.get(event, str(event))
            if getattr(ev, flag):
                ev.tampering.append(f"a second {event!r} record")
            setattr(ev, flag, True)
            if event == "start" and rec.get("safe_path") is False:
                ev.tampering.append("the runner did not start in safe-path mode")
        elif event == "finish" and isinstance(rec.get("status"), int):
            ev.finish_status = rec["status"]
        elif event == "phase" and isinstance(rec.get("id"), str):
            ev.phases.setdefault(rec["id"], []).append((str(rec.get("when")), str(rec.get("outcome"))))
        elif event == "item" and isinstance(rec.get("id"), str):
            ev.items.append(rec["id"])
        elif event == "collect_error":
            ev.collect_errors.append(str(rec.get("id", "")))
        elif event == "tampered":
            ev.tampering.append(f"pytest's report machinery was replaced ({rec.get('what')})")
        else:
            ev.tampering.append(f"an unknown record {event!r}")
    return ev


def expected_probes(tests: dict[str, bool], expected: list[str]) -> dict[str, bool]:
    """Expected id -> passed: at least one reported case (the id itself or ``id[...]``), all passed."""
    out: dict[str, bool] = {}
    for e in expected:
        cases = [ok for node, ok in tests.items() if node == e or node.startswith(e + "[")]
        out[e] = bool(cases) and all(cases)
    return out


def judge_pytest(ev: GuardEvidence, proc: ProcessResult, expected: list[str],
                 timeout: float) -> tuple[CheckStatus, dict[str, bool] | None, str]:
    """Status, probes and detail of a ``{pytest}`` check from the guard's records (positive evidence).

    * FAIL at a timeout after the ``start`` record: the submission's code was running and did not finish
      within the fixed budget (SpecPath counts a verifier timeout as a fixed-budget failure; a loop in the
      submission must not become a pending row the agent can hide behind).
    * HARNESS_ERROR: a timeout before the runner started, or a start-up failure (C.2); no ``start`` record
      (the runner never booted);
      exit 4 (usage error) without a finished session, either before the ``args`` record (before any
      submission code could run) or between ``conftests`` and ``configured`` (pytest's full parse of
      the harness's command line failed).
    * FAIL with every probe false: the channel was tampered with, or the session never finished (the
      process ended early -- ``os._exit``, a crash, a killed parent -- after submission code could run).
    * FAIL: a finished session with exit status other than 0 (failures, collection errors (2), internal
      error (3), usage error after start-up (4), no tests (5)), any collection error, no tests, any test
      without a passing call or with a failing/skipped phase, a missing or failing expected test, or a
      process whose exit code disagrees with a passing session (something ran after the session).
    * PASS otherwise.
    """
    code = proc.exit_code
    if proc.timed_out:
        if ev.started:
            return CheckStatus.FAIL, {i: False for i in [*ev.tests(), *expected]}, (
                f"timed out after {timeout:g}s while the submission's tests ran (fixed-budget failure)")
        return CheckStatus.HARNESS_ERROR, None, f"timed out after {timeout:g}s before the test runner started"
    if proc.start_error:
        return CheckStatus.HARNESS_ERROR, None, proc.start_error
    if not ev.started:
        return CheckStatus.HARNESS_ERROR, None, f"the test runner never started (exit code {code})"
    tests = ev.tests()
    zeros = {i: False for i in [*tests, *expected]}
    if ev.tampering:
        return CheckStatus.FAIL, zeros, "evidence channel tampered with: " + "; ".join(
            dict.fromkeys(ev.tampering))
    if ev.finish_status is None:
        if code == 4 and (not ev.args_read or (ev.conftests and not ev.configured)):
            return CheckStatus.HARNESS_ERROR, None, "pytest rejected the check's command line (exit 4)"
        return CheckStatus.FAIL, zeros, (f"the test process ended before the pytest session finished "
                                         f"(exit code {code}): the submission's code ended it")
    probes = dict(tests)
    probes.update({e: ok for e, ok in expected_probes(tests, expected).items() if e not in tests})
    problems: list[str] = []
    if ev.finish_status != 0:
        problems.append(f"pytest exit status {ev.finish_status}")
    if ev.collect_errors:
        problems.append(f"collection errors in {sorted(set(ev.collect_errors))[:5]}")
    if not tests:
        problems.append("no tests ran")
    failed = sorted(i for i, ok in tests.items() if not ok)
    if failed:
        problems.append(f"{len(failed)} test(s) did not pass, e.g. {failed[:3]}")
    missing = [e for e, ok in expected_probes(tests, expected).items() if not ok and e not in failed]
    if missing:
        problems.append(f"expected tests missing or failing: {missing[:5]}")
    if not problems and code != 0:
        problems.append(f"the process exited {code} after a passing session")
    if problems:
        return CheckStatus.FAIL, probes, "; ".join(problems)
    return CheckStatus.PASS, probes, f"{len(tests)} test(s) passed"


class _ChannelReader(threading.Thread):
    def __init__(self, fd: int) -> None:
        super().__init__(daemon=True)
        self.fd, self.data, self.overflow = fd, bytearray(), False

    def run(self) -> None:
        while chunk := os.read(self.fd, 65536):
            if len(self.data) + len(chunk) > CHANNEL_CAP_BYTES:
                self.overflow = True
                continue
            self.data += chunk


# ---------------------------------------------------------------------------------------------------
# Running a check


def run_check(check: Check, workspace: Path, hidden_dir: Path | None = None, *,
              env: dict[str, str] | None = None, base: Path | None = None) -> CheckResult:
    """Run `check` on a snapshot copy of `workspace` and map the evidence to a `CheckResult`.

    `base` is the tree the submission started from: protected paths of the snapshot are restored from
    it before the check runs (without a base nothing can be restored and nothing is recorded).
    """
    item = f"check {check.name!r}"
    if hidden_dir is not None and not Path(hidden_dir).is_dir():
        raise InputError("hidden directory not found", file=str(hidden_dir), item=item)
    report_name = check.report_name()
    with tempfile.TemporaryDirectory(prefix="reqbench-check-") as scratch_name:
        scratch = Path(scratch_name)
        snapshot, output = scratch / "workspace", scratch / "output"
        copy_tree(Path(workspace), snapshot)
        output.mkdir()
        touched = (restore_protected(snapshot, Path(base), [*DEFAULT_PROTECTED, *check.protected])
                   if base is not None else [])
        values = {"workspace": str(snapshot), "output": str(output),
                  "junit": str(output / report_name), "python": sys.executable}
        binds: dict[Path, Path] = {}
        run_env = {"REQBENCH_WORKSPACE": str(snapshot), "REQBENCH_OUTPUT": str(output)}
        if hidden_dir is not None:
            hidden = scratch / "hidden"
            copy_tree(Path(hidden_dir), hidden)  # the suite's own copy is never exposed to a check
            values["hidden"] = str(hidden)
            run_env["REQBENCH_HIDDEN"] = str(hidden)
            binds[hidden] = hidden
        run_env.update(env or {})
        if not check.runs_pytest:
            command = render_command(check.command, values, item=item)
            proc = run_sandboxed(command, snapshot, timeout=check.timeout_seconds, env=run_env,
                                 writable=[output], readonly_binds=binds, network=False,
                                 bind_named_files=True)
            result = _plain_result(check, proc, output, report_name, [snapshot, *binds])
        else:
            proc, ev = _run_guarded(check, scratch, snapshot, output, values, binds, run_env, item)
            status, probes, detail = judge_pytest(ev, proc, check.expected_tests, check.timeout_seconds)
            result = CheckResult(status, proc.exit_code, round(proc.wall_seconds, 3), probes, detail,
                                 proc.stdout_tail(), proc.stderr_tail())
        result.protected_touched = touched
        if touched:
            result.detail = (result.detail + f"; protected paths restored: {touched[:10]}").lstrip("; ")
        return result


def _plain_result(check: Check, proc: ProcessResult, output: Path, report_name: str,
                  roots: list[Path]) -> CheckResult:
    result = CheckResult(status=status_from_exit(proc.exit_code), exit_code=proc.exit_code,
                         wall_seconds=round(proc.wall_seconds, 3), stdout_tail=proc.stdout_tail(),
                         stderr_tail=proc.stderr_tail())
    if proc.timed_out:
        result.detail = f"timed out after {check.timeout_seconds:g}s"
    elif proc.start_error:
        result.detail = proc.start_error
    elif result.status is CheckStatus.HARNESS_ERROR:
        result.detail = f"exit code {proc.exit_code} (only 0 and 1 are valid check results)"
    if check.probes is not None and result.status is not CheckStatus.HARNESS_ERROR:
        report = output / report_name
        try:
            probes = read_junit(report, roots) if check.probes == "junit" else read_probe_json(report)
        except ValueError as exc:
            result.status = CheckStatus.HARNESS_ERROR
            result.detail = f"probe report {report_name}: {exc}"
            return result
        if not probes:
            result.status = CheckStatus.HARNESS_ERROR
            result.detail = f"probe report {report_name} lists no probes (empty bucket)"
            return result
        result.probes = probes
    return result


def _run_guarded(check: Check, scratch: Path, snapshot: Path, output: Path, values: dict[str, str],
                 binds: dict[Path, Path], run_env: dict[str, str],
                 item: str) -> tuple[ProcessResult, GuardEvidence]:
    """Run a ``{pytest}`` command with the guard and its channel; return the process and the records."""
    guard = scratch / "guard"
    guard.mkdir()
    shutil.copyfile(GUARD_DIR / f"{GUARD_MODULE}.py", guard / f"{GUARD_MODULE}.py")
    ini = guard / "pytest.ini"
    ini.write_text("[pytest]\n", encoding="utf-8")  # harness-side: no workspace configuration is read
    want = check.rootdir or ("hidden" if "hidden" in values else "workspace")
    if want == "hidden" and "hidden" not in values:
        raise InputError("rootdir 'hidden' needs a hidden directory", item=item)
    root = values["hidden"] if want == "hidden" else str(snapshot)
    values = {**values, "pytest": shlex.join([
        sys.executable, "-P", "-m", "pytest", "-p", GUARD_MODULE, "-p", "no:cacheprovider",
        "-c", str(ini), "--rootdir", root, "--confcutdir", str(scratch)])}
    command = render_command(check.command, values, item=item)
    missing = _missing_hidden_paths(command, values.get("hidden"))
    if missing:  # the suite names hidden tests that are not there: nothing the submission did
        return (ProcessResult(None, False, f"the check names missing hidden paths {missing[:3]}", None, None,
                              0.0, "none"), GuardEvidence())
    token = secrets.token_hex(16)
    read_fd, write_fd = os.pipe()
    token_r, token_w = os.pipe()
    os.write(token_w, token.encode())
    os.close(token_w)
    run_env = {**run_env, "PYTHONPATH": str(guard), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "REQBENCH_GUARD_FDS": f"{write_fd}:{token_r}",
               "REQBENCH_GUARD_PYTHONPATH": os.pathsep.join(
                   str(snapshot / p) if p != "." else str(snapshot) for p in check.pythonpath)}
    reader = _ChannelReader(read_fd)
    reader.start()
    try:
        proc = run_sandboxed(command, snapshot, timeout=check.timeout_seconds, env=run_env,
                             writable=[output], readonly_binds={**binds, guard: guard}, network=False,
                             pass_fds=(write_fd, token_r), bind_named_files=True)
    finally:
        os.close(write_fd)
        os.close(token_r)
        reader.join(timeout=10)
        if reader.is_alive():  # a descendant still holds the write end: what it held back is missing
            reader.overflow = True
        else:
            os.close(read_fd)
    return proc, parse_guard_records(bytes(reader.data), token, overflow=reader.overflow)


def read_probe_json(path: Path) -> dict[str, bool]:
    """``{probe_id: true|false}``; anything else raises ValueError."""
    if not path.is_file():
        raise ValueError("missing")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, bool)
                                             for k, v in data.items()):
        raise ValueError("must be an object mapping probe ids to true/false")
    return dict(data)


def read_junit(path: Path, roots: list[Path]) -> dict[str, bool]:
    """Probe id (pytest node id) -> passed, from a JUnit XML report; ValueError when unusable.

    A test case passed when it has no failure, error or skipped child; a node listed twice (e.g. a
    teardown error) passes only if every entry passed.
    """
    if not path.is_file():
        raise ValueError("missing")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ValueError(f"not valid XML ({exc})") from None
    probes: dict[str, bool] = {}
    for case in root.iter("testcase"):
        node = junit_node_id(case.get("classname", ""), case.get("name", ""), case.get("file"), roots)
        passed = not any(child.tag in ("failure", "error", "skipped") for child in case)
        probes[node] = probes.get(node, True) and passed
    return probes


def junit_node_id(classname: str, name: str, file: str | None, roots: list[Path]) -> str:
    """Map pytest's JUnit ``classname``/``name`` (and ``file`` when present) back to its node id.

    pytest writes ``classname`` as the node id's path with ``/`` -> ``.`` and ``.py`` dropped, followed
    by the class chain. With ``file`` (junit_family=xunit1) the split is exact; otherwise the longest
    dotted prefix naming an existing ``.py`` file below one of `roots` is the module.
    """
    parts = classname.split(".") if classname else []
    module_len = 0
    if file:
        path = file.replace("\\", "/")
        dotted = (path[:-3] if path.endswith(".py") else path).replace("/", ".").split(".")
        if parts[:len(dotted)] == dotted:
            module_len = len(dotted)
    else:
        path = ""
        for i in range(len(parts), 0, -1):
            candidate = "/".join(parts[:i]) + ".py"
            if any((Path(r) / candidate).is_file() for r in roots):
                path, module_len = candidate, i
                break
        if not path:
            path, module_len = ("/".join(parts) + ".py" if parts else ""), len(parts)
    return "::".join([path, *parts[module_len:], name]) if path else name


def _missing_hidden_paths(command: str, hidden: str | None) -> list[str]:
    """Words of `command` naming a path below the (read-only) hidden directory that does not exist."""
    if not hidden:
        return []
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    out = []
    for word in words:
        path = word.split("=", 1)[-1].split("::", 1)[0]
        if (path == hidden or path.startswith(hidden + "/")) and not any(c in path for c in "*?[$`") \
                and not Path(path).exists():
            out.append(path)
    return out
