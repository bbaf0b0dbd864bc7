"""Judge contracts: requests enumerate every candidate; adversarial answers are rejected, retried,
and end *pending* (never a silent zero); every attempt leaves a call record."""

from __future__ import annotations

import pytest

from reqbench.core.judges.base import JudgePending, JudgeRequest
from reqbench.core.judges.exact import ExactJudge
from reqbench.protocols.takeover.judging import (
    CONTRACTS,
    REQUIREMENT_ALIGNMENT,
    AlignSide,
    BlockerCandidate,
    JudgeSession,
    alignment_request,
    clarification_request,
)
from reqbench.protocols.takeover.phase_a.response import check_response
from reqbench.protocols.takeover.scoring.rq2 import score_rq2
from tests.protocols.takeover.score_helpers import ScriptedJudge, label_all, make_state, rq2_gold

PREDS = [AlignSide("req_a", "Currency"), AlignSide("req_b", "Site list")]
GOLDS = [AlignSide("REQ_X", "Currency"), AlignSide("REQ_Y", "Sites"), AlignSide("REQ_Z", "Tax")]


def _align_request() -> JudgeRequest:
    return alignment_request(REQUIREMENT_ALIGNMENT, PREDS, GOLDS)


def test_alignment_request_covers_every_prediction_gold_pair_once() -> None:
    req = _align_request()
    assert list(req.candidates) == [f"p{i}.g{j}" for i in range(2) for j in range(3)]
    assert req.data["items"]["p1.g2"]["key"] == {"prediction_ref": "req_b", "gold_ref": "REQ_Z"}
    assert req.data["request_schema_version"] == "requirement-alignment-request-v1"
    assert set(req.labels) == {
        "SAME_ATOM",
        "MERGED_ATOMS",
        "SUBPART_OF_ATOM",
        "RELATED_DIFFERENT_ATOM",
        "UNRELATED",
        "UNCERTAIN",
    }


def test_every_contract_has_the_paper_schema_versions_and_key_fields() -> None:
    got = {
        c.name: (c.request_schema_version, c.response_schema_version, c.key_fields)
        for c in CONTRACTS.values()
    }
    assert got == {
        "rq1_requirement_alignment": (
            "rq1-alignment-request-v1",
            "rq1-alignment-response-v1",
            ("prediction_ref", "gold_ref"),
        ),
        "requirement_alignment": (
            "requirement-alignment-request-v1",
            "requirement-alignment-response-v1",
            ("prediction_ref", "gold_ref"),
        ),
        "attribute_field_identity": (
            "state-field-alignment-request-v1",
            "state-field-alignment-response-v1",
            ("prediction_field_ref", "gold_field_ref"),
        ),
        "text_equivalence": ("state-semantic-request-v1", "state-semantic-response-v1", ("fact_id",)),
        "clarification_semantic": (
            "rq3-clarification-semantic-request-v1",
            "rq3-clarification-semantic-response-v1",
            ("candidate_id",),
        ),
    }


def _drop_one(req: JudgeRequest) -> list[tuple[str, str]]:
    return [(c, "UNRELATED") for c in req.candidates[1:]]


def _duplicate(req: JudgeRequest) -> list[tuple[str, str]]:
    return [(c, "UNRELATED") for c in req.candidates] + [(req.candidates[0], "SAME_ATOM")]


def _unknown_label(req: JudgeRequest) -> list[tuple[str, str]]:
    return [(c, "PROBABLY_SAME" if k == 0 else "UNRELATED") for k, c in enumerate(req.candidates)]


def _extra(req: JudgeRequest) -> list[tuple[str, str]]:
    return [(c, "UNRELATED") for c in req.candidates] + [("p9.g9", "UNRELATED")]


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (_drop_one, "not labelled"),
        (_duplicate, "labelled twice"),
        (_unknown_label, "not one of"),
        (_extra, "extra candidate"),
    ],
)
def test_adversarial_answers_are_rejected_and_leave_the_request_pending(answer, reason: str) -> None:  # type: ignore[no-untyped-def]
    judge = ScriptedJudge(answer)
    session = JudgeSession(judge, attempts=3)
    with pytest.raises(JudgePending, match=reason):
        session.ask(_align_request())
    assert judge.calls == 3
    assert [r["accepted"] for r in session.records] == [False, False, False]
    assert all(reason in r["error"] for r in session.records)


def test_a_rejected_answer_is_retried_and_the_valid_retry_is_recorded() -> None:
    judge = ScriptedJudge(_duplicate, label_all("UNRELATED"))
    session = JudgeSession(judge)
    labels = session.ask(_align_request())
    assert set(labels.values()) == {"UNRELATED"} and judge.calls == 2
    ok = session.records[-1]
    assert ok["accepted"] and ok["attempt"] == 2 and ok["judge_id"] == "scripted"
    assert ok["request"]["data"]["items"]["p0.g0"]["content"]["prediction_summary"] == "Currency"
    assert ok["request_key"] == _align_request().key() and ok["started"] <= ok["finished"]


def test_a_label_of_the_wrong_field_is_rejected_in_the_clarification_contract() -> None:
    cand = BlockerCandidate("c0.b0", "Currency", "VALUE", None, "x", "x", "q?", ("q",))
    req = clarification_request([cand], "task")
    assert list(req.candidates) == ["c0.b0#issue_relation", "c0.b0#question_validity"]
    swapped = ScriptedJudge(
        lambda r: [("c0.b0#issue_relation", "VALID"), ("c0.b0#question_validity", "VALID")]
    )
    with pytest.raises(JudgePending, match="issue_relation labels"):
        JudgeSession(swapped).ask(req)
    assert JudgeSession(ExactJudge()).ask(req) == {
        "c0.b0#issue_relation": "EQUIVALENT",
        "c0.b0#question_validity": "VALID",
    }


def test_pending_judge_keeps_rq2_pending_never_zero() -> None:
    gold = rq2_gold({"REQ_X": ("Currency", make_state({"currency": "AUD"}))})
    raw = {
        "requirements": [
            {
                "requirement_ref": "req_x",
                "requirement_summary": "Currency",
                "evidence_message_ids": [],
                "pre_task_state": make_state({"currency": "AUD"}),
            }
        ],
        "decision": "ACT",
        "post_task_states": [
            {
                "requirement_ref": "req_x",
                "requirement_summary": "Currency",
                "change_type": "MODIFIED",
                "removed_attribute_keys": [],
                "state": make_state(),
            }
        ],
        "clarifications": [],
    }
    response = check_response(raw, []).frozen.response
    result = score_rq2(gold, response, JudgeSession(ScriptedJudge(_drop_one)))
    assert result.status == "pending"
    assert result.attribute_score is None and result.pending
