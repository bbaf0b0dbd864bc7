"""The outcome taxonomy: one table, consistent statuses, documented on the Runs page (docs/runs.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.execute.outcomes import REASONS, Reason, check_reason, classified, readme_table
from reqbench.core.execute.types import RowOutcome, RowStatus

RUNS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "runs.md"


def test_agent_caused_reasons_are_always_scored() -> None:
    assert all(info.status is RowStatus.SCORED for info in REASONS.values() if info.agent_caused)
    assert classified(Reason.VERIFIER_TIMEOUT).status is RowStatus.SCORED
    assert classified(Reason.PROVIDER_RATE_LIMIT).status is RowStatus.INVALID
    assert classified(Reason.JUDGE_UNAVAILABLE).status is RowStatus.PENDING


def test_a_reason_that_contradicts_the_status_is_refused() -> None:
    with pytest.raises(ValueError, match="means scored"):
        check_reason(RowOutcome(RowStatus.INVALID, reason="agent_timeout"))
    with pytest.raises(ValueError):
        check_reason(RowOutcome(RowStatus.SCORED, reason="no-such-reason"))
    check_reason(RowOutcome(RowStatus.SCORED))  # unclassified (old store, plugin) is allowed


def test_the_docs_have_the_one_outcome_table() -> None:
    assert readme_table() in RUNS_PAGE.read_text(encoding="utf-8")
