"""Metric definitions on hand-built session records (§3.4, B.3): expected values computed by hand."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.journey.capability import TurnLabels, heuristic_turn, rates
from reqbench.protocols.journey.metrics import final_f2p, final_p2p, proc_f2p
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.report import summarize_rows
from reqbench.protocols.journey.session import SessionRecord, TurnRecord

SUB, MUL, DIV, DIVZ, ADD = (f"tests_hidden/test_ops.py::test_{n}" for n in ("sub", "mul", "div", "div_zero", "x"))
ADD = "tests_hidden/test_base.py::test_add"


def _turn(i: int, probes: dict[str, bool], **kw) -> TurnRecord:  # type: ignore[no-untyped-def]
    base = dict(index=i, user_message="", disclosed=[], active=[], stage=0, reply="", status="completed",
                usage={}, steps=1, diff="", changed_files=[], probes=probes, tree="t")
    base.update(kw)
    return TurnRecord(**base)  # type: ignore[arg-type]


def test_proc_f2p_uses_each_stage_at_the_moment_the_session_leaves_it(calc_instance: Path) -> None:
    inst = load_instance(calc_instance)
    rec = SessionRecord(instance="calc", condition="x", mode="interactive", base_probes={ADD: True})
    rec.turns = [_turn(1, {SUB: True, MUL: False, ADD: True}),               # stage 1 left after turn 1
                 _turn(2, {SUB: False, MUL: True, DIV: True, DIVZ: True, ADD: False})]
    rec.stage_exit_turn = {0: 1, 1: 2}
    # stage 1 at turn 1: sub yes, mul no -> 1/2; stage 2 at the end: 2/2; pooled (1 + 2) / 4
    assert proc_f2p(rec, inst) == 0.75
    # final: sub regressed -> 3/4 F2P; add broke -> 0/1 P2P
    assert final_f2p(rec, inst) == 0.75
    assert final_p2p(rec, inst) == 0.0
    rec.mode = "single-shot"
    assert proc_f2p(rec, inst) is None


def test_capability_rates_exclude_no_locus_turns_from_hit_and_miss() -> None:
    labels = [TurnLabels(True, True, "hit", False), TurnLabels(True, False, "miss", True),
              TurnLabels(False, False, "no_locus", True), TurnLabels(False, False, "miss", False)]
    r = rates(labels, 40)
    assert (r["ask"], r["rel"], r["oc"]) == (0.5, 0.25, 0.5)
    assert (r["hit"], r["miss"]) == (1 / 3, 2 / 3)
    assert (r["skip"], r["crit"], r["user_confidence"]) == (None, None, 40.0)


def test_heuristic_labels_a_relevant_question_and_an_off_target_edit(calc_instance: Path) -> None:
    inst = load_instance(calc_instance)
    turn = _turn(1, {SUB: False}, active=["T1"], changed_files=["notes.txt"],
                 reply="I updated the notes. Done! Should calc.sub(a, b) return a minus b?")
    labels = heuristic_turn(inst, turn)
    assert (labels.solicits, labels.on_plan, labels.locus, labels.overconfident_wrong) == (
        True, True, "miss", True)
    hit = heuristic_turn(inst, _turn(1, {SUB: True}, active=["T1"], changed_files=["calc.py"], reply="Done."))
    assert (hit.solicits, hit.locus, hit.overconfident_wrong) == (False, "hit", False)


def test_summary_ignores_unscored_rows_and_averages_sessions() -> None:
    def out(f2p: float, p2p: float, turns: int) -> RowOutcome:
        return RowOutcome(RowStatus.SCORED, result={"final_f2p": f2p, "final_p2p": p2p, "proc_f2p": f2p,
                                                    "turns": turns, "cost_usd": 0.5, "final_confidence": 50})

    rows = [(Row("i", "non-coder", "a", 0), out(0.5, 1.0, 4)), (Row("i", "non-coder", "a", 1), out(0.0, 0.5, 8)),
            (Row("i", "non-coder", "a", 2), RowOutcome(RowStatus.INVALID, detail="provider"))]
    s = summarize_rows(rows)["non-coder"]
    assert (s["sessions"], s["final_f2p"], s["final_p2p"], s["average"]) == (2, 0.25, 0.75, 0.5)
    assert (s["turns_per_session"], s["cost_per_session"]) == (6.0, 0.5)


def test_judged_capabilities_from_recorded_labels(calc_instance: Path, tmp_path: Path) -> None:
    import json

    from reqbench.core.judges.replay import ReplayJudge
    from reqbench.protocols.journey.capability import (
        judged_capabilities,
        session_capabilities,
        stage_requests,
    )

    inst = load_instance(calc_instance)
    rec = SessionRecord(instance="calc", condition="x", mode="interactive", base_probes={})
    rec.turns = [_turn(1, {SUB: False}, active=["T1"], reply="Which name should it have?"),
                 _turn(2, {SUB: True}, active=["T1"], changed_files=["calc.py"], reply="Done.",
                       reasoning="The test may be flaky; I will ignore it.")]
    answers = [{"asking": {"solicits": "yes", "on_plan": "yes"},
                "finding": {"localization": "no_locus", "overconfident_wrong": "no"}},
               {"asking": {"solicits": "no", "on_plan": "no"},
                "finding": {"localization": "hit", "overconfident_wrong": "no"},
                "fixing": {"problem_handling": "skipped", "critical": "yes"}}]
    lines = []
    for turn, labels in zip(rec.turns, answers, strict=True):
        reqs = stage_requests(inst, turn, turn.reasoning)
        assert set(reqs) == set(labels)  # fixing is judged only where reasoning is visible
        lines += [json.dumps({"request_key": reqs[s].key(), "labels": lab}) for s, lab in labels.items()]
    file = tmp_path / "labels.jsonl"
    file.write_text("\n".join(lines) + "\n")
    caps = judged_capabilities(rec, inst, ReplayJudge(file), 55, [t.reasoning for t in rec.turns])
    assert caps["method"].startswith("judge:")
    assert (caps["ask"], caps["rel"], caps["hit"], caps["miss"], caps["oc"]) == (0.5, 0.5, 1.0, 0.0, 0.0)
    assert (caps["skip"], caps["crit"], caps["user_confidence"]) == (1.0, 1.0, 55.0)
    # a judge that cannot answer leaves the heuristic in place and says why, never a silent zero
    file.write_text(lines[0] + "\n")
    fallback = session_capabilities(rec, inst, f"replay:{file}", 55)
    assert fallback["method"] == "heuristic" and "no recorded labels" in fallback["judge_pending"]
