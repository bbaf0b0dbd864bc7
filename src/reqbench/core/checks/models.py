"""Checks as data: `Check` (a command and how to read it), `CheckStatus`, `CheckResult`, placeholders."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from reqbench.core.errors import InputError


class CheckStatus(StrEnum):
    """Outcome of one check (ReqMemBench C.2, refined for pytest checks: see the module docstring)."""

    PASS = "PASS"
    """Plain command: exit 0 (and a non-empty probe report when probes were requested). pytest check:
    the guard saw a finished session in which every test (and every expected test) passed."""
    FAIL = "FAIL"
    """Plain command: exit 1, or killed at the sandbox's memory cap. pytest check: anything short of a PASS
    that the submission could have caused (failed/skipped/missing tests, collection errors, a process that
    ended early, a tampered evidence channel)."""
    HARNESS_ERROR = "HARNESS_ERROR"
    """The harness could not measure: a timeout, a start-up failure, a plain command's exit code other
    than 0/1 (unless the memory cap killed it), a missing/empty probe report of a plain command, a test
    runner that never started. Not an agent failure: the row stays pending until re-evaluated."""
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

GUARD_DIR = Path(__file__).resolve().parent.parent / "checkguard"
GUARD_MODULE = "reqbench_guard"
GUARD_RUNNER = "reqbench_pytest"
"""``python -P -m reqbench_pytest``: pytest with the guard registered (``checkguard/reqbench_pytest.py``)."""
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
    timeout_seconds: float = Field(default=600.0, gt=0, allow_inf_nan=False,
                                   description="Wall-clock limit; exceeding it is HARNESS_ERROR")
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
    timed_out: bool = False
    """The check ran out of its wall-clock budget. With a FAIL status the submission's code was running (a
    fixed-budget failure of the agent); with HARNESS_ERROR it was not (the harness could not measure)."""
    collection_errors: list[str] = field(default_factory=list)
    """Collectors pytest failed to import or collect (from the guard's records, never from output text).
    Always a FAIL of the check; whose failure it is depends on who wrote the code under test (a submission
    vs. a harness-controlled calibration patch)."""
    skipped_tests: list[str] = field(default_factory=list)
    """Tests pytest reported as skipped (from the guard's records): never passing evidence, listed so a report
    can say so."""
    unexpected_exit: bool = False
    """The check's process ran and exited with a code other than 0 or 1 (ReqMemBench C.2 reads that as a
    HARNESS_ERROR): not a timeout, a start-up failure, a runner that never started or a kill at the memory
    cap. `core.checks.recheck` re-runs such a check once."""
    reproduced: bool = False
    """The restored, pristine check exited with the same unexpected code again on the same submission
    (`core.checks.recheck`): the submission caused it, the check is its FAIL."""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status.value, "exit_code": self.exit_code,
                "wall_seconds": self.wall_seconds, "probes": self.probes, "detail": self.detail,
                "stdout_tail": self.stdout_tail, "stderr_tail": self.stderr_tail,
                "protected_touched": list(self.protected_touched), "timed_out": self.timed_out,
                **({"collection_errors": list(self.collection_errors)} if self.collection_errors else {}),
                **({"skipped_tests": list(self.skipped_tests)} if self.skipped_tests else {}),
                **({"unexpected_exit": True} if self.unexpected_exit else {}),
                **({"reproduced": True} if self.reproduced else {})}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckResult:
        return cls(status=CheckStatus(d["status"]), exit_code=d.get("exit_code"),
                   wall_seconds=d.get("wall_seconds", 0.0), probes=d.get("probes"),
                   detail=d.get("detail", ""), stdout_tail=d.get("stdout_tail", ""),
                   stderr_tail=d.get("stderr_tail", ""),
                   protected_touched=list(d.get("protected_touched", [])),
                   timed_out=bool(d.get("timed_out", False)),
                   collection_errors=list(d.get("collection_errors", [])),
                   skipped_tests=list(d.get("skipped_tests", [])),
                   unexpected_exit=bool(d.get("unexpected_exit", False)),
                   reproduced=bool(d.get("reproduced", False)))

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


