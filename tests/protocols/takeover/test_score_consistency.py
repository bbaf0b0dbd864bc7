"""Cross-RQ consistency (C.3, E.2): the same prediction-gold pair labelled differently by the RQ1 and
RQ2 judge calls is flagged; adjudicated labels appended to a replay file update both RQs."""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.judges.base import JudgeRequest
from reqbench.core.judges.replay import ReplayJudge
from reqbench.protocols.takeover.judging import JudgeSession
from reqbench.protocols.takeover.phase_a.response import AgentResponse
from reqbench.protocols.takeover.scoring.consistency import check_consistency
from reqbench.protocols.takeover.scoring.rq1 import score_rq1
from reqbench.protocols.takeover.scoring.rq2 import score_rq2
from tests.protocols.takeover.score_helpers import ScriptedJudge, make_state, rq1_gold, rq2_gold

GOLDS = {"REQ_PRIZE": "Prize Claim Flow", "REQ_B": "Leaderboard", "REQ_C": "Signup", "REQ_D": "Payments"}


def _response() -> AgentResponse:
    return AgentResponse.model_validate(
        {
            "requirements": [
                {
                    "requirement_ref": "reward_payout",
                    "requirement_summary": "Reward payout",
                    "evidence_message_ids": [1],
                    "pre_task_state": make_state({"x": 1}),
                }
            ],
            "decision": "ACT",
            "clarifications": [],
            "post_task_states": [
                {
                    "requirement_ref": "reward_payout",
                    "requirement_summary": "Reward payout",
                    "change_type": "MODIFIED",
                    "removed_attribute_keys": [],
                    "state": make_state(),
                }
            ],
        }
    )


def _by_contract(request: JudgeRequest) -> list[tuple[str, str]]:
    pair_label = "MERGED_ATOMS" if request.contract == "rq1_requirement_alignment" else "SAME_ATOM"
    out = []
    for cand in request.candidates:
        if request.contract.endswith("alignment"):
            hit = request.data["items"][cand]["key"]["gold_ref"] == "REQ_PRIZE"
            out.append((cand, pair_label if hit else "UNRELATED"))
        else:
            out.append(
                (
                    cand,
                    "NOT_EQUIVALENT"
                    if request.contract == "text_equivalence"
                    else "DIFFERENT_STATE_VARIABLE",
                )
            )
    return out


def test_a_pair_labelled_differently_in_rq1_and_rq2_is_flagged(tmp_path: Path) -> None:
    g1 = rq1_gold({rid: (s, [[1]], []) for rid, s in GOLDS.items()})
    g2 = rq2_gold({rid: (s, make_state({"x": 1})) for rid, s in GOLDS.items()})
    session = JudgeSession(ScriptedJudge(_by_contract))
    r1, r2 = score_rq1(g1, _response(), session), score_rq2(g2, _response(), session)
    assert r1.requirement is not None and r1.requirement.recall == 0.0 and r2.coverage == 0.25
    report = check_consistency(r1.alignment, r2.alignment)  # type: ignore[arg-type]
    assert not report.consistent and (report.rq1_matches, report.rq2_matches) == (0, 1)
    assert [f.as_json() for f in report.flags] == [
        {
            "prediction_ref": "reward_payout",
            "gold_ref": "REQ_PRIZE",
            "rq1_relation": "MERGED_ATOMS",
            "rq2_relation": "SAME_ATOM",
            "eligibility_differs": True,
        }
    ]

    # Human adjudication: SAME_ATOM in RQ1 too. Appending the reviewed labels to the replay file and
    # re-scoring updates the matching and the affected metric.
    records = tmp_path / "labels.jsonl"
    with open(records, "w") as fh:
        for rec in session.records:
            if rec["contract"] == "rq1_requirement_alignment":
                rec = dict(
                    rec,
                    judge_id="human-review",
                    labels={
                        c: ("SAME_ATOM" if lab == "MERGED_ATOMS" else lab) for c, lab in rec["labels"].items()
                    },
                )
            fh.write(json.dumps(rec) + "\n")
    replay = JudgeSession(ReplayJudge(records))
    r1b, r2b = score_rq1(g1, _response(), replay), score_rq2(g2, _response(), replay)
    assert r1b.requirement is not None and r1b.requirement.recall == 0.25
    assert check_consistency(r1b.alignment, r2b.alignment).consistent  # type: ignore[arg-type]
