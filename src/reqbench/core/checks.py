"""Checks: a command run against a *snapshot* of a workspace, with hidden tests, mapped to a status.

The rules (ReqMemBench appendix C.2): exit 0 is PASS, exit 1 is FAIL, and any other exit code, a
start-up failure or a timeout is HARNESS_ERROR -- an infrastructure problem, never an agent failure,
re-evaluated on the frozen submission later. A check never runs in the agent's workspace: it runs on a
fresh copy (so it can neither be disturbed by nor leak anything into the agent's files), with the hidden
directory (tests the agent never had) readable at ``{hidden}``, in the sandbox, without network.

Evidence comes only from the exit code and from result files in a harness-owned output directory
(``{output}``), never from what the command prints: printing "PASSED" changes nothing. Per-probe results
come from a pytest JUnit XML report (``probes: junit``; the harness adds ``--junitxml`` through
``PYTEST_ADDOPTS`` unless the command uses ``{junit}``) or a JSON file ``{probe_id: true|false}``
(``probes: json``). When probes are requested, a missing, unparseable or empty report is HARNESS_ERROR
(fail closed): a run that proves nothing about its probes is not a result.
"""

from __future__ import annotations

import json
import re
import shlex
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reqbench.core.errors import InputError
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.workspace import copy_tree


class CheckStatus(StrEnum):
    """Outcome of one check (ReqMemBench C.2)."""

    PASS = "PASS"
    """The command exited 0 (and, when probes were requested, produced a non-empty probe report)."""
    FAIL = "FAIL"
    """The command exited 1: a valid, executed check that the submission does not satisfy."""
    HARNESS_ERROR = "HARNESS_ERROR"
    """Any other exit code, a start-up failure, a timeout, or a missing/empty probe report when probes
    were requested. Not an agent failure: the row stays pending until re-evaluated."""
    SKIPPED = "SKIPPED"
    """Not run because an earlier gate decided the outcome (e.g. after Build FAIL); contributes no PASS
    and is not relabelled FAIL."""


PLACEHOLDERS = ("workspace", "hidden", "output", "junit")
_PLACEHOLDER_RE = re.compile(r"\{(" + "|".join(PLACEHOLDERS) + r")\}")


class Check(BaseModel):
    """One check of a task: a shell command and how to read its result."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Check name, e.g. build, target, regression")
    command: str = Field(description="Shell command; placeholders {workspace} (the snapshot it runs "
                                     "in), {hidden} (hidden directory), {output} (harness-owned "
                                     "output directory), {junit} (JUnit XML path inside {output})")
    timeout_seconds: float = Field(default=600.0, gt=0, description="Wall-clock limit; exceeding it "
                                                                    "is HARNESS_ERROR")
    probes: Literal["junit", "json"] | None = Field(
        default=None, description="Per-probe results: pytest JUnit XML, or a JSON object "
                                  "{probe_id: true|false}; null for none")
    result_file: str | None = Field(
        default=None, description="Probe report path relative to the output directory (default "
                                  "junit.xml or results.json)")

    @field_validator("result_file")
    @classmethod
    def _inside_output(cls, value: str | None) -> str | None:
        if value is not None and (Path(value).is_absolute() or ".." in Path(value).parts):
            raise ValueError("result_file must be a relative path inside the output directory")
        return value

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

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "exit_code": self.exit_code,
                "wall_seconds": self.wall_seconds, "probes": self.probes, "detail": self.detail,
                "stdout_tail": self.stdout_tail, "stderr_tail": self.stderr_tail}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckResult:
        return cls(status=CheckStatus(d["status"]), exit_code=d.get("exit_code"),
                   wall_seconds=d.get("wall_seconds", 0.0), probes=d.get("probes"),
                   detail=d.get("detail", ""), stdout_tail=d.get("stdout_tail", ""),
                   stderr_tail=d.get("stderr_tail", ""))

    @classmethod
    def skipped(cls, reason: str) -> CheckResult:
        return cls(status=CheckStatus.SKIPPED, detail=reason)


def status_from_exit(exit_code: int | None) -> CheckStatus:
    """Exit 0 PASS, exit 1 FAIL, anything else (incl. no exit code: timeout / no start) HARNESS_ERROR."""
    if exit_code == 0:
        return CheckStatus.PASS
    if exit_code == 1:
        return CheckStatus.FAIL
    return CheckStatus.HARNESS_ERROR


def render_command(template: str, values: dict[str, str], *, item: str) -> str:
    """Substitute the known ``{name}`` placeholders (shell-quoted); other braces are left alone."""

    def sub(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise InputError(f"placeholder {{{key}}} has no value here", item=item)
        return shlex.quote(values[key])

    return _PLACEHOLDER_RE.sub(sub, template)


def run_check(check: Check, workspace: Path, hidden_dir: Path | None = None, *,
              env: dict[str, str] | None = None) -> CheckResult:
    """Run `check` on a snapshot copy of `workspace` and map the evidence to a `CheckResult`."""
    item = f"check {check.name!r}"
    if hidden_dir is not None and not Path(hidden_dir).is_dir():
        raise InputError("hidden directory not found", file=str(hidden_dir), item=item)
    report_name = check.report_name()
    with tempfile.TemporaryDirectory(prefix="reqbench-check-") as scratch:
        snapshot, output = Path(scratch) / "workspace", Path(scratch) / "output"
        copy_tree(Path(workspace), snapshot)
        output.mkdir()
        values = {"workspace": str(snapshot), "output": str(output),
                  "junit": str(output / report_name)}
        binds: dict[Path, Path] = {}
        run_env = {"REQBENCH_WORKSPACE": str(snapshot), "REQBENCH_OUTPUT": str(output)}
        if hidden_dir is not None:
            hidden = Path(scratch) / "hidden"
            copy_tree(Path(hidden_dir), hidden)  # the suite's own copy is never exposed to a check
            values["hidden"] = str(hidden)
            run_env["REQBENCH_HIDDEN"] = str(hidden)
            binds[hidden] = hidden
        command = render_command(check.command, values, item=item)
        run_env.update(env or {})
        if check.probes == "junit" and "{junit}" not in check.command:
            run_env["PYTEST_ADDOPTS"] = " ".join(filter(None, [
                run_env.get("PYTEST_ADDOPTS", ""), f"--junitxml={shlex.quote(values['junit'])}",
                "-o junit_family=xunit1"]))
        proc = run_sandboxed(command, snapshot, timeout=check.timeout_seconds, env=run_env,
                             writable=[output], readonly_binds=binds, network=False,
                             bind_named_files=True)
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
                probes = (read_junit(report, [snapshot, *binds]) if check.probes == "junit"
                          else read_probe_json(report))
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
