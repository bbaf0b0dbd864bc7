"""The verdict of a check whose process exits with an unexpected code (neither 0 nor 1), decided at once.

ReqMemBench appendix C.2 reads "other codes" as HARNESS_ERROR: the evaluation is pending and the frozen
submission is re-evaluated, because the harness may really have failed. A submission can make the test
process exit with any code it likes, though (``os._exit(5)`` on import), and would then keep its row
pending for ever, while SpecPath and journey score the same event as its failure. The table:

| the check's process | verdict |
|---|---|
| exits 0 / 1 | PASS (with its evidence) / FAIL |
| times out, cannot start, never starts the runner | unchanged here (C.2 HARNESS_ERROR, or core's verifier timeout) |
| exits N, then the restored, pristine check exits N again on the same submission | FAIL, `reproduced` |
| exits N, then the re-check ends any other way | the re-check's result (the first run was the harness's) |

A ``{pytest}`` check's FAIL with such a code is already the submission's by the guard's evidence (its code
ran), which is how SpecPath and journey read it; takeover's gates read C.2 literally and so re-check it.
The rule is sound where the same pristine command is known to pass on the reference (takeover admission):
then only the submission can make it exit the same unexpected way twice. A command that fails every tree
(a broken verifier of an uncalibrated SpecPath family) is not such evidence, which is why SpecPath's plain
verifiers keep C.2's pending.

"Restored, pristine": `run_check` runs on a fresh snapshot of the same submission, with the protected paths
put back from the base and the guard re-read. The re-check runs once, right after the first run, so a row
is decided in the run that checked it; only a re-check that exits with a *different* unexpected code stays
C.2's HARNESS_ERROR (pending; the protocols bound how often a pending submission is checked again).
"""

from __future__ import annotations

from pathlib import Path

from reqbench.core.checks.models import Check, CheckResult, CheckStatus
from reqbench.core.checks.run import run_check

__all__ = ["run_check_settled", "settle"]


def settle(check: Check, first: CheckResult, again: CheckResult) -> CheckResult:
    """The verdict of `check` that exited unexpectedly (`first`) and its restored re-check (`again`): the
    same unexpected code again is the submission's FAIL (a plain command's probes: none passed); otherwise
    the re-check stands. Either way the detail names both runs."""
    if again.unexpected_exit and again.exit_code == first.exit_code:
        again.status, again.reproduced = CheckStatus.FAIL, True
        if again.probes is None and check.probes is not None:
            again.probes = {}
        again.detail = (f"exit code {again.exit_code} again on a restored re-check of the same submission: "
                        f"the submission's failure ({again.detail})")
        return again
    again.detail = f"re-checked after exit code {first.exit_code} ({first.detail}): {again.detail}"
    return again


def run_check_settled(check: Check, workspace: Path, hidden_dir: Path | None = None, *,
                      env: dict[str, str] | None = None, base: Path | None = None) -> CheckResult:
    """`run_check`, and once more on the same `workspace` when its process exited with an unexpected code
    (`CheckResult.unexpected_exit`); the two runs are decided by `settle`."""
    first = run_check(check, workspace, hidden_dir, env=env, base=base)
    if not first.unexpected_exit:
        return first
    return settle(check, first, run_check(check, workspace, hidden_dir, env=env, base=base))
