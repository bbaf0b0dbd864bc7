"""Capability provenance (paper §4.2/B.3) and the ranking comparisons of `journey table` (B.2)."""

from types import SimpleNamespace

import pytest

from reqbench.core.execute.types import Row, RowStatus
from reqbench.protocols.journey.comparisons import (
    INTERACTIVE,
    comparison_tables,
    persona_rank_correlations,
    single_shot_vs_interactive,
)
from reqbench.protocols.journey.report import summarize_rows
from reqbench.protocols.journey.session import _reasoning


def _row(cond: str, caps: dict, agent: str = "a") -> tuple[Row, SimpleNamespace]:
    return Row("i1", cond, agent, 0), SimpleNamespace(status=RowStatus.SCORED, result={"capabilities": caps})


def test_heuristic_is_never_averaged_with_judged_sessions() -> None:
    rows = [_row("p", {"method": "judge:j", "ask": 0.5, "skip": None}),
            _row("p", {"method": "judge:j", "ask": 0.3, "skip": 0.2}),
            _row("p", {"method": "heuristic", "ask": 1.0, "skip": None}),
            _row("p", {"method": "heuristic", "ask": 1.0, "judge_pending": "x"})]
    s = summarize_rows(rows)["p"]
    assert s["ask"] == pytest.approx(0.4)  # (0.5 + 0.3) / 2, the heuristic 1.0s are left out
    assert s["capability_method"] == "judge:j (2 judged; 2 heuristic not averaged)"
    assert s["skip"] == pytest.approx(0.2) and s["skip_crit_source"] == "reasoning traces (1 sessions)"
    only = summarize_rows([_row("q", {"method": "heuristic", "ask": 1.0, "skip": None})])["q"]
    assert only["capability_method"].startswith("heuristic") and only["skip"] is None
    assert only["skip_crit_source"] == "n/a: no reasoning traces"


def test_message_text_is_not_a_reasoning_trace() -> None:
    msg = SimpleNamespace(kind="message", data={"role": "assistant", "content": "I think the bug is X"})
    assert _reasoning(SimpleNamespace(trajectory=[msg])) == ""
    traced = SimpleNamespace(kind="message", data={"role": "assistant", "content": "x", "reasoning": "r1"})
    assert _reasoning(SimpleNamespace(trajectory=[msg, traced])) == "r1"


SUMMARY = {  # Average per assistant and condition
    "a/single-shot": {"average": 0.50}, "a/architect": {"average": 0.70}, "a/novice": {"average": 0.30},
    "b/single-shot": {"average": 0.40}, "b/architect": {"average": 0.60}, "b/novice": {"average": 0.35},
    "c/single-shot": {"average": 0.20}, "c/architect": {"average": 0.50}, "c/novice": {"average": 0.10},
}


def test_paired_single_shot_comparison_by_hand() -> None:
    out = single_shot_vs_interactive(SUMMARY)
    # architect - single-shot: .20, .20, .30 -> mean .7/3; rankings identical -> rho 1
    assert out["architect"]["mean_paired_difference"] == pytest.approx(0.7 / 3)
    assert out["architect"]["rho"] == pytest.approx(1.0)
    # novice - single-shot: -.20, -.05, -.10 -> mean -.35/3; novice ranks b > a > c, single a > b > c:
    # d = (2-3)... ranks single (a3,b2,c1), novice (a2,b3,c1): d = 1,-1,0 -> rho = 1 - 6*2/(3*8) = .5
    assert out["novice"]["mean_paired_difference"] == pytest.approx(-0.35 / 3)
    assert out["novice"]["rho"] == pytest.approx(0.5)
    # persona mean: a .5, b .475, c .3 -> minus single: 0, .075, .1 -> mean .175/3
    assert out[INTERACTIVE]["mean_paired_difference"] == pytest.approx(0.175 / 3)
    assert out[INTERACTIVE]["n"] == 3


def test_rank_correlations_between_conditions_and_the_table() -> None:
    ranks = persona_rank_correlations(SUMMARY)
    assert ranks["architect vs novice"]["rho"] == pytest.approx(0.5)
    assert ranks["architect vs single-shot"]["rho"] == pytest.approx(1.0)
    text = comparison_tables(SUMMARY)
    assert "Spearman rho across assistants" in text and "| architect | 3 | +23.33 | 1.000 |" in text
    assert comparison_tables({"single-shot": {"average": 0.5}}) == ""
