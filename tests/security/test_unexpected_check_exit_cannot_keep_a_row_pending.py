"""Threat: a submission makes the check's process exit with a code other than 0 or 1 (``os._exit(5)`` when
pytest imports it, a script that exits 7), which ReqMemBench C.2 reads as HARNESS_ERROR, so its failed
takeover row stays pending -- and its configuration never gets a delivery rate -- while SpecPath and journey
score the same event as a failure.

Defence (`core.checks.recheck`): the restored, pristine check runs once more on the same submission; the
same code again is the submission's FAIL, in the run that checked it. Real checks on the bundled suite.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.checks import Check, CheckStatus, run_check_settled
from reqbench.core.execute.outcomes import Reason, status_of
from reqbench.core.execute.types import RowStatus
from reqbench.core.workspace import Submission, apply_patch, materialize
from reqbench.core.workspace.freezing import safe_submission
from reqbench.protocols.takeover.delivery.gates import Decision
from reqbench.protocols.takeover.run.coding import evaluate
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.rows import delivery_reason

pytestmark = pytest.mark.usefixtures("require_bwrap")

SUITE = bundled_suite("takeover")
TARGET = "DOCKSIDE_T001"
EXIT_5 = "\n\nimport os as _o, sys as _s\nif 'pytest' in _s.modules:\n    _o._exit(5)\n"


def test_a_submission_exiting_5_under_the_gates_is_scored_failed_in_the_run_that_checked_it(
        tmp_path: Path) -> None:
    ctx = SuiteContext.load(SUITE, tmp_path / "cache")
    ws = materialize(ctx.initial_repository(TARGET), tmp_path / "ws")
    apply_patch(ws.path, (SUITE / ctx.delivery(TARGET).reference_patch).read_text(encoding="utf-8"))
    init = ws.path / "billing" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + EXIT_5, encoding="utf-8")
    sub = safe_submission(ws)
    assert isinstance(sub, Submission)
    coding = evaluate(ctx, TARGET, sub, tmp_path / "e0")  # the first evaluation, no re-evaluation
    assert coding.outcome.decision is Decision.FAIL and coding.outcome.primary_failure == "target"
    target = coding.checks["target"]
    assert target["exit_code"] == 5 and target["reproduced"] and target["gate_status"] == "FAIL"
    reason = delivery_reason({}, coding)
    assert reason is Reason.CHECKS_FAILED and status_of(reason) is RowStatus.SCORED


def test_a_plain_check_exiting_the_same_odd_code_twice_is_the_submissions_fail(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "run.py").write_text("import sys\nsys.exit(7)\n", encoding="utf-8")
    check = Check(name="plain", command="{python} run.py", probes="junit", timeout_seconds=60)
    result = run_check_settled(check, tmp_path / "ws")
    assert result.status is CheckStatus.FAIL and result.reproduced and result.exit_code == 7
    assert result.probes == {}  # no probe passes
    assert "again on a restored re-check" in result.detail
