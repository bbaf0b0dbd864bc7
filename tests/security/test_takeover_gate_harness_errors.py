"""Takeover gates follow ReqMemBench C.2: a timeout or a runner exit code other than 0/1 is a HARNESS_ERROR
(pending, re-checked on the frozen submission). Threat: a submission that hangs the checks (or makes the
runner exit with a different odd code each time) on purpose, to keep its failed row pending for ever instead
of scored 0. Defence: the re-checks are bounded (`RECHECK_LIMIT`); reproduced, the error is the submission's
FAIL. (The same odd code twice is decided at once: `test_unexpected_check_exit_cannot_keep_a_row_pending`.)

Real checks in real subprocesses on the bundled suite; the budget is shortened with the timeout re-run
option so a hanging submission costs seconds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.outcomes import Reason, status_of
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.workspace import Submission, apply_patch, materialize
from reqbench.core.workspace.freezing import safe_submission
from reqbench.protocols.takeover.delivery.gates import RECHECK_LIMIT, Decision
from reqbench.protocols.takeover.run.coding import evaluate
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.rows import delivery_reason, reevaluate

pytestmark = pytest.mark.usefixtures("require_bwrap")

SUITE = bundled_suite("takeover")
TARGET = "DOCKSIDE_T001"
HANG = "\n\nimport sys as _s, time as _t\nif 'pytest' in _s.modules:\n    _t.sleep(3600)\n"
RANDOM_EXIT = ("\n\nimport os as _o, sys as _s\nif 'pytest' in _s.modules:\n"
               "    _o._exit(2 + int.from_bytes(_o.urandom(2), 'big') % 250)\n")


def _submission(ctx: SuiteContext, tmp: Path, code: str) -> Submission:
    ws = materialize(ctx.initial_repository(TARGET), tmp / "ws")
    apply_patch(ws.path, (SUITE / ctx.delivery(TARGET).negative_patches[0]).read_text(encoding="utf-8"))
    init = ws.path / "billing" / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + code, encoding="utf-8")
    sub = safe_submission(ws)
    assert isinstance(sub, Submission)
    return sub


def test_submission_timeout_cannot_keep_a_takeover_row_pending_forever(tmp_path: Path) -> None:
    ctx = SuiteContext.load(SUITE, tmp_path / "cache")
    sub = _submission(ctx, tmp_path, HANG)
    first = evaluate(ctx, TARGET, sub, tmp_path / "e0", timeout=3)
    assert first.outcome.decision is Decision.PENDING  # C.2: a timeout is HARNESS_ERROR, not a FAIL
    assert first.checks["target"]["gate_status"] == "HARNESS_ERROR" and first.checks["target"]["submission_ran"]
    # re-checked on --resume: the counter travels in the row's result
    previous = RowOutcome(RowStatus.PENDING, {"kind": "delivery", "target_id": TARGET, "condition": "C1",
                                              "delivery": first.outcome.to_dict(), "checks": first.checks,
                                              "submission": {"sha256": sub.sha256, "patch": sub.patch}},
                          reason=Reason.CHECK_INFRASTRUCTURE.value)
    options = RunOptions(check_timeout=3)
    row = Row(TARGET, "C1", "x")
    for n in range(1, RECHECK_LIMIT + 1):
        previous = reevaluate(ctx, row, previous, options, tmp_path / f"e{n}")
        assert previous.result.gate_rechecks == n
        if n < RECHECK_LIMIT:
            assert previous.status is RowStatus.PENDING
    assert previous.status is RowStatus.SCORED and previous.reason == Reason.VERIFIER_TIMEOUT.value
    assert previous.result.delivery.decision == "fail"


def test_runner_exits_that_change_on_each_recheck_are_settled_but_infrastructure_stays_pending(
        tmp_path: Path) -> None:
    ctx = SuiteContext.load(SUITE, tmp_path / "cache")
    sub = _submission(ctx, tmp_path, RANDOM_EXIT)
    first = evaluate(ctx, TARGET, sub, tmp_path / "e0")
    target = first.checks["target"]
    assert target["exit_code"] not in (None, 0, 1)
    # two different unexpected codes (the restored re-check did not reproduce the first): C.2 pending
    assert first.outcome.decision is (Decision.FAIL if target.get("reproduced") else Decision.PENDING)
    settled = evaluate(ctx, TARGET, sub, tmp_path / "e1", rechecks=RECHECK_LIMIT)
    assert settled.outcome.decision is Decision.FAIL
    assert status_of(delivery_reason({}, settled)) is RowStatus.SCORED
    # a harness error the submission cannot cause (hidden tests missing) is never settled
    broken = SuiteContext.load(SUITE, tmp_path / "cache")
    broken.hidden_dir = lambda _t: tmp_path / "empty-hidden"  # type: ignore[method-assign]
    (tmp_path / "empty-hidden").mkdir()
    still = evaluate(broken, TARGET, sub, tmp_path / "e2", rechecks=RECHECK_LIMIT + 5)
    assert still.outcome.decision is Decision.PENDING
