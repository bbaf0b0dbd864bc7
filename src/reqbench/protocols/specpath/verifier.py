"""Running a family's verifier V_i on a workspace and reading the probe signature (SpecPath eq. 4).

The verifier is a `core.checks.Check`: it runs on a snapshot of the workspace, in the sandbox, with the
hidden tests (never in the agent's workspace) at ``{hidden}``. The standard command is pytest with a
private empty ini written to the harness-owned output directory and ``--rootdir`` = the hidden directory,
so neither the workspace nor any project around the family can inject configuration. Nothing is
installed per run: the workspace's import roots go on ``PYTHONPATH`` and plugin autoloading is off,
which keeps a probe run to one interpreter start-up.

pytest's exit codes are mapped so the submission's own faults stay agent outcomes: 2 (collection error,
e.g. the submitted module does not import) and 5 (nothing collected) become 1 (FAIL); 3 and 4 (internal
and usage errors) remain harness errors, as do a timeout and a missing or empty JUnit report.

Fail closed: a family probe id whose bucket holds no reported test case, and every skipped, erroring or
failing case, reads as 0. Parametrised cases (``test_x[1]``) belong to the bucket ``test_x``.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.checks import Check, CheckResult, CheckStatus, run_check
from reqbench.protocols.specpath.family import Family

STANDARD_COMMAND = (
    "printf '[pytest]\\n' > {output}/specpath-pytest.ini && "
    "PYTHONPATH={pythonpath} PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONDONTWRITEBYTECODE=1 "
    "{python} -m pytest -q -p no:cacheprovider -c {output}/specpath-pytest.ini --rootdir={hidden} "
    "--junitxml={junit} -o junit_family=xunit1 {hidden}; "
    "rc=$?; case $rc in 2|5) exit 1;; *) exit $rc;; esac")


@dataclass
class VerifierRun:
    harness_error: bool
    probes: dict[str, bool] = field(default_factory=dict)
    """Family probe id -> passed (fail-closed), in the family's probe order."""
    collected: dict[str, int] = field(default_factory=dict)
    """Family probe id -> reported test cases in its bucket (0 = empty bucket)."""
    seconds: float = 0.0
    detail: str = ""

    def signature(self, order: tuple[str, ...]) -> list[int] | None:
        if self.harness_error:
            return None
        return [int(self.probes.get(p, False)) for p in order]


def verifier_check(family: Family, timeout: float | None = None) -> Check:
    """The family's verifier as a core `Check` (``{python}`` and the import roots filled in here)."""
    spec = family.spec.verifier
    pythonpath = ":".join("{workspace}/" + p.strip("/") for p in spec.pythonpath) or "{workspace}"
    command = (spec.command or STANDARD_COMMAND).replace("{pythonpath}", pythonpath)
    command = command.replace("{python}", shlex.quote(sys.executable))
    return Check(name=f"{family.id}-verifier", command=command, probes="junit",
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
    return VerifierRun(False, passed, collected, result.wall_seconds, result.stdout_tail[-2000:])


def run_verifier(family: Family, workspace: Path, timeout: float | None = None) -> VerifierRun:
    """Run V_i on a snapshot of `workspace`; never raises for a verifier or submission problem."""
    result = run_check(verifier_check(family, timeout), Path(workspace), family.hidden_dir)
    return read_result(family, result)
