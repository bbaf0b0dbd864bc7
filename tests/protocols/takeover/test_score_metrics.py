"""RQ1-RQ3 metrics on hand-computed cases, the paper's worked illustrations, N/A and failure rules."""

from __future__ import annotations

import pytest

from reqbench.core.judges.exact import ExactJudge
from reqbench.protocols.takeover.judging import JudgeSession
from reqbench.protocols.takeover.phase_a.response import AgentResponse
from reqbench.protocols.takeover.scoring.rq1 import score_rq1
from reqbench.protocols.takeover.scoring.rq2 import score_rq2
from reqbench.protocols.takeover.scoring.rq3 import score_rq3
from tests.protocols.takeover.score_helpers import make_state, rq1_gold, rq2_gold, rq3_gold


def session() -> JudgeSession:
    return JudgeSession(ExactJudge())


def req(ref: str, summary: str, evidence=(), state=None) -> dict:  # type: ignore[no-untyped-def]
    return {
        "requirement_ref": ref,
        "requirement_summary": summary,
        "evidence_message_ids": list(evidence),
        "pre_task_state": state or make_state(),
    }


def post(ref: str, summary: str, state: dict, removed=()) -> dict:  # type: ignore[no-untyped-def]
    return {
        "requirement_ref": ref,
        "requirement_summary": summary,
        "change_type": "MODIFIED",
        "removed_attribute_keys": list(removed),
        "state": state,
    }


def act(requirements=(), posts=()) -> AgentResponse:  # type: ignore[no-untyped-def]
    return AgentResponse.model_validate(
        {
            "requirements": list(requirements),
            "decision": "ACT",
            "post_task_states": list(posts),
            "clarifications": [],
        }
    )


def clarify(clars, requirements=()) -> AgentResponse:  # type: ignore[no-untyped-def]
    return AgentResponse.model_validate(
        {
            "requirements": list(requirements),
            "decision": "CLARIFY",
            "post_task_states": None,
            "clarifications": list(clars),
        }
    )


def test_attribute_score_illustration_two_gold_three_predicted_fields_is_0_4() -> None:
    # C.1: gold has two attribute fields, the prediction three; one matched field scores 1 and the
    # rest are unmatched: a_r = 2 * 1 / (2 + 3) = 0.4.
    gold = rq2_gold({"REQ_M": ("Model currency", make_state({"currency": "AUD", "base_year": 2031}))})
    pred = act(
        [req("req_m", "Model currency", state=make_state({"currency": "aud", "fx": "x", "unit": "M"}))]
    )
    result = score_rq2(gold, pred, session())
    assert result.attribute_score == pytest.approx(0.4)
    assert result.coverage == 1.0


def test_rq2_field_alignment_by_judge_then_value_comparison() -> None:
    from tests.protocols.takeover.score_helpers import ScriptedJudge

    gold = rq2_gold({"REQ_M": ("Model currency", make_state({"currency": "AUD", "base_year": 2031}))})
    pred = act([req("req_m", "Model currency", state=make_state({"currency": "AUD", "price_year": 2030}))])

    def answers(request):  # type: ignore[no-untyped-def]
        if request.contract == "attribute_field_identity":
            return [(c, "SAME_STATE_VARIABLE") for c in request.candidates]
        return ExactJudge().judge(request).labels.items()

    # price_year is judged the same variable as base_year but its value differs: (1 + 0) * 2 / 4.
    result = score_rq2(gold, pred, JudgeSession(ScriptedJudge(lambda r: list(answers(r)))))
    assert result.attribute_score == pytest.approx(0.5)


def test_rq2_coverage_na_and_zero_rules() -> None:
    gold = rq2_gold({"REQ_A": ("Alpha", make_state({"x": 1})), "REQ_B": ("Beta", make_state({}))})
    none_matched = score_rq2(gold, act([req("r1", "Gamma")]), session())
    assert none_matched.coverage == 0.0 and none_matched.attribute_score is None
    # Beta matched with no attribute field on either side: N/A; with an added field: 0.
    only_b = score_rq2(gold, act([req("r2", "beta", state=make_state({}))]), session())
    assert only_b.coverage == 0.5 and only_b.attribute_score is None
    added = score_rq2(gold, act([req("r2", "Beta", state=make_state({"y": 2}))]), session())
    assert added.attribute_score == 0.0
    failure = score_rq2(gold, None, session())
    assert (failure.status, failure.coverage, failure.attribute_score) == ("agent_failure", 0.0, 0.0)


def test_rq1_requirement_and_evidence_prf_with_neutral_and_covered_messages() -> None:
    gold = rq1_gold({"REQ_A": ("Alpha rule", [[1, 2], [5]], [7]), "REQ_B": ("Beta rule", [[3]], [])})
    pred = act(
        [
            req(
                "ra", "Alpha rule", [1, 2, 7, 9]
            ),  # 1 covers A/EG1, 2 extra in covered group, 7 neutral, 9 FP
            req("rc", "Gamma rule", [3]),  # covers B/EG1 although the requirement is not matched
        ]
    )
    result = score_rq1(gold, pred, session())
    # requirements: 1 match of 2 predictions and 2 gold -> P 0.5, R 0.5, F1 0.5
    assert result.requirement is not None
    assert (result.requirement.precision, result.requirement.recall, result.requirement.f1) == (0.5, 0.5, 0.5)
    # evidence: TP 2 (A/EG1, B/EG1), FP 1 (msg 9), FN 1 (A/EG2): P 2/3, R 2/3
    ev = result.evidence
    assert (ev.tp, ev.n_pred, ev.n_gold) == (2, 3, 3)
    assert ev.precision == pytest.approx(2 / 3) and ev.recall == pytest.approx(2 / 3)
    assert ev.f1 == pytest.approx(2 / 3)


def test_rq1_without_predictions_scores_zero_precision_and_f1() -> None:
    gold = rq1_gold({"REQ_A": ("Alpha", [[1]], [])})
    result = score_rq1(gold, act([]), session())
    assert result.requirement is not None
    assert (result.requirement.precision, result.requirement.recall, result.requirement.f1) == (0.0, 0.0, 0.0)
    assert (result.evidence.precision, result.evidence.recall, result.evidence.f1) == (0.0, 0.0, 0.0)


def test_rq1_prefers_the_match_with_better_evidence_overlap() -> None:
    # Two predictions both SAME_ATOM with one gold (identical summaries): the one citing the gold
    # evidence wins through the Je / Ce terms of the edge weight.
    gold = rq1_gold({"REQ_A": ("Alpha", [[4]], [])})
    result = score_rq1(gold, act([req("x1", "Alpha", [1]), req("x2", "Alpha", [4])]), session())
    assert result.alignment is not None and result.alignment.matched_refs() == [("x2", "REQ_A")]


def _act_gold(removed=None):  # type: ignore[no-untyped-def]
    return rq3_gold(
        "ACT",
        {"REQ_D": ("Date field", make_state({"format": "day/month/year", "entry": "calendar or Enter"}))},
        removed=removed,
    )


def test_correct_state_with_wrong_removal_list_is_not_exact() -> None:
    gold = _act_gold({"REQ_D": ["attributes.old_option"]})
    state = make_state({"format": "day/month/year", "entry": "calendar or Enter"})
    wrong = score_rq3(gold, "C1", act(posts=[post("d", "Date field", state)]), session())
    assert wrong.post_state_score == 1.0 and wrong.exact is False and wrong.exact_failure == "removal"
    right = score_rq3(gold, "C1", act(posts=[post("d", "Date field", state, ["old_option"])]), session())
    assert right.exact is True and right.exact_failure is None


def test_post_state_score_penalises_extra_and_missing_requirements() -> None:
    gold = rq3_gold(
        "ACT", {"REQ_A": ("Alpha", make_state({"x": 1})), "REQ_B": ("Beta", make_state({"y": 2}))}
    )
    # Alpha exact (s=1); Beta missing; one extra: 2 * 1 / (2 + 2) = 0.5.
    pred = act(posts=[post("a", "Alpha", make_state({"x": 1})), post("z", "Zeta", make_state({"z": 1}))])
    result = score_rq3(gold, "C1", pred, session())
    assert result.post_state_score == pytest.approx(0.5)
    assert result.exact_failure == "set" and result.matched_set is False
    # Alpha with a wrong value: dimensions attributes 0, scope 1, lifecycle 1, ambiguity 1, execution 1
    # -> s = 4/5; Post-State = 2 * 0.8 / (1 + 2).
    partial = score_rq3(gold, "C1", act(posts=[post("a", "Alpha", make_state({"x": 2}))]), session())
    assert partial.post_state_score == pytest.approx(2 * 0.8 / 3)


def test_state_without_applicable_dimensions_adds_zero_and_is_not_exact() -> None:
    empty = make_state(
        {}, scope={"persistence": None, "components": None, "contexts": None}, lifecycle_status=None
    )
    gold = rq3_gold("ACT", {"REQ_E": ("Empty", empty)})
    gold.post_state_scoring_specs["REQ_E"]["ambiguity"] = {"comparator": "SKIP", "score": False}
    gold.post_state_scoring_specs["REQ_E"]["execution"] = {"comparator": "SKIP", "score": False}
    result = score_rq3(gold, "C1", act(posts=[post("e", "Empty", empty)]), session())
    assert result.pairs[0].state_score is None
    assert result.post_state_score == 0.0 and result.exact is False and result.exact_failure == "state"


def _clar_gold():  # type: ignore[no-untyped-def]
    blockers = [
        {
            "requirement_id": "REQ_C",
            "dimension": "VALUE",
            "field": None,
            "missing_information": "Currency of the opex line",
            "acceptable_question_facts": ["convert the opex to AUD"],
        },
        {
            "requirement_id": "REQ_C",
            "dimension": "SCOPE",
            "field": "contexts",
            "missing_information": "Which sites are covered",
            "acceptable_question_facts": ["list the sites"],
        },
    ]
    return rq3_gold(
        "CLARIFY", {"REQ_C": ("Currency", make_state()), "REQ_S": ("Sites", make_state())}, blockers
    )


def clar(ref, dim, field, missing, question):  # type: ignore[no-untyped-def]
    return {
        "requirement_ref": ref,
        "requirement_summary": "Currency",
        "dimension": dim,
        "field": field,
        "missing_information": missing,
        "question": question,
    }


def test_clarification_metrics_hand_computed() -> None:
    pred = clarify(
        [
            clar("c", "VALUE", None, "currency of the OPEX line", "Should we convert the opex to AUD?"),
            clar(
                "c", "SCOPE", "components", "which sites are covered", "Please list the sites"
            ),  # wrong field
            clar("c", "VALUE", None, "tax class", "Which class?"),
        ]
    )
    r = score_rq3(_clar_gold(), "C1", pred, session())
    # one matched blocker of 3 predicted and 2 gold: F1 = 2/5; its question is valid: QV 1; not strict.
    assert r.blocking_issue_f1 == pytest.approx(0.4) and r.question_validity == 1.0
    assert r.strict_clarification is False and r.post_state_score is None


def test_strict_clarification_needs_every_blocker_and_valid_questions() -> None:
    both = [
        clar("c", "VALUE", None, "Currency of the opex line", "convert the opex to AUD?"),
        clar("c", "SCOPE", "contexts", "Which sites are covered", "Could you list the sites?"),
    ]
    assert score_rq3(_clar_gold(), "C1", clarify(both), session()).strict_clarification is True
    vague = [both[0], dict(both[1], question="Anything else?")]
    r = score_rq3(_clar_gold(), "C1", clarify(vague), session())
    assert r.blocking_issue_f1 == 1.0 and r.question_validity == 0.5 and r.strict_clarification is False


def test_wrong_branch_scores_zero_on_gold_branch_and_other_branch_is_na() -> None:
    act_on_clarify = score_rq3(
        _clar_gold(), "C1", act(posts=[post("c", "Currency", make_state())]), session()
    )
    assert (act_on_clarify.blocking_issue_f1, act_on_clarify.question_validity) == (0.0, 0.0)
    assert act_on_clarify.strict_clarification is False and act_on_clarify.post_state_score is None
    clarify_on_act = score_rq3(_act_gold(), "C1", clarify([clar("d", "VALUE", None, "x", "y")]), session())
    assert clarify_on_act.post_state_score == 0.0 and clarify_on_act.exact is False
    assert clarify_on_act.exact_failure == "action" and clarify_on_act.blocking_issue_f1 is None
    failed = score_rq3(_act_gold(), "C1", None, session())
    assert failed.status == "agent_failure" and failed.decision_correct is False
    assert failed.post_state_score == 0.0
