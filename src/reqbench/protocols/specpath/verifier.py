"""Running a family's verifier V_i on a workspace and reading the probe signature (SpecPath eq. 4).

The verifier is a `core.checks.Check`: it runs on a snapshot of the workspace, in the sandbox, with the
hidden tests (never in the agent's workspace) at ``{hidden}``. The standard command is the hardened
``{pytest}`` runner over the hidden directory (rootdir = the hidden directory): the harness's interpreter
in safe-path mode with the guard plugin, a harness-side ini file and plugin autoloading off, so neither
the workspace nor any project around the family can shadow pytest or inject configuration. The
workspace's import roots (`VerifierSpec.pythonpath`) join ``sys.path`` only after pytest and the guard
are imported. Before the run, conftest.py / ini / sitecustomize / .pth files the submission changed are
restored from the family's base repository.

Per-probe results come from the guard's records, never from files in the output directory or from the
exit code (which code under test controls). Every family probe is an expected test: a probe whose bucket
holds no reported case fails the check. Anything the submission causes -- an import or collection error,
a process ended early (``os._exit``), rewritten reports -- yields a FAIL with the affected (or, when the
evidence itself is compromised, all) probes at 0; only a timeout or a runner that never started is a
verifier infrastructure failure (SpecPath §3: verifier-infrastructure invalidity is attrition, verifier
test failure a fixed-budget failure).

Fail closed: a family probe id whose bucket holds no reported test case, and every skipped, erroring or
failing case, reads as 0. Parametrised cases (``test_x[1]``) belong to the bucket ``test_x``.

A custom `VerifierSpec.command` without ``{pytest}`` is a plain command: exit 0/1 and a JUnit report it
writes to ``{junit}`` -- only as trustworthy as that command.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.checks import Check, CheckResult, CheckStatus, run_check
from reqbench.protocols.specpath.family import Family

STANDARD_COMMAND = "{pytest} -q {hidden}"


@dataclass
class VerifierRun:
    harness_error: bool
    probes: dict[str, bool] = field(default_factory=dict)
    """Family probe id -> passed (fail-closed), in the family's probe order."""
    collected: dict[str, int] = field(default_factory=dict)
    """Family probe id -> reported test cases in its bucket (0 = empty bucket)."""
    seconds: float = 0.0
    detail: str = ""
    timed_out: bool = False
    """The verifier ran out of its budget while the submission's tests ran (a fixed-budget failure)."""
    collection_errors: list[str] = field(default_factory=list)
    """Hidden-test collectors that failed to import or collect (calibration: the verifier's failure)."""

    def signature(self, order: tuple[str, ...]) -> list[int] | None:
        if self.harness_error:
            return None
        return [int(self.probes.get(p, False)) for p in order]


def verifier_check(family: Family, timeout: float | None = None) -> Check:
    """The family's verifier as a core `Check` (core binds ``{python}``/``{pytest}``; ``{pythonpath}`` of
    a custom command is the import roots below ``{workspace}``)."""
    spec = family.spec.verifier
    roots = [p.strip("/") or "." for p in spec.pythonpath] or ["."]
    pythonpath = " ".join("{workspace}/" + p for p in roots)
    command = (spec.command or STANDARD_COMMAND).replace("{pythonpath}", pythonpath)
    guarded = "{pytest}" in command or "-m pytest" in command
    return Check(name=f"{family.id}-verifier", command=command, probes=None if guarded else "junit",
                 pythonpath=roots, rootdir="hidden", expected_tests=list(family.probes) if guarded else [],
                 timeout_seconds=timeout or spec.timeout_seconds)


def buckets(reported: dict[str, bool], probes: tuple[str, ...]) -> tuple[dict[str, bool], dict[str, int]]:
    """Group reported node ids into the family's probe buckets; a probe passes iff its bucket is
    non-empty and every case in it passed."""
    passed, collected = {}, {}
    for probe in probes:
        cases = [ok for node, ok in reported.items() if node == probe or node.startswith(probe + "[")]
        collected[probe] = len(cases)
        passed[probe] = bool(cases) and all(cases)
    return passed, collected


def read_result(family: Family, result: CheckResult) -> VerifierRun:
    if result.status is CheckStatus.HARNESS_ERROR or result.probes is None:
        tail = "\n".join(x for x in (result.stdout_tail, result.stderr_tail) if x)[-2000:]
        return VerifierRun(True, seconds=result.wall_seconds,
                           detail=f"verifier infrastructure failure: {result.detail}\n{tail}".strip())
    passed, collected = buckets(result.probes, family.probes)
    return VerifierRun(False, passed, collected, result.wall_seconds, result.stdout_tail[-2000:],
                       timed_out=result.timed_out, collection_errors=list(result.collection_errors))


def run_verifier(family: Family, workspace: Path, timeout: float | None = None, *,
                 consume: bool = False) -> VerifierRun:
    """Run V_i on a snapshot of `workspace`; never raises for a verifier or submission problem.

    `consume=True` only for a harness-made tree no agent process ever had (`core.checks.run_check`):
    the check then runs on it instead of on a copy, and the caller discards it afterwards."""
    from reqbench.core.execute.environments import task_checks

    with task_checks(family.spec.environment, str(family.root / "family.yaml"), family.root):
        result = run_check(verifier_check(family, timeout), Path(workspace), family.hidden_dir,
                           base=family.base_repo, consume=consume)
    return read_result(family, result)
