"""The semantic judge sees what the paper's judge saw (D.3): the text of every cited message, not only its
id; and each RQ table of a report names the judge that produced it (exact: a string-identity lower bound)."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import RowOutcome, RowStatus
from reqbench.core.judges.exact import EXACT_JUDGE_ID
from reqbench.core.judges.factory import make_judge
from reqbench.protocols.takeover.annotation.loading import load_project
from reqbench.protocols.takeover.release.build import build_release
from reqbench.protocols.takeover.run.report import EXACT_LABEL, rq_judge
from reqbench.protocols.takeover.scoring.instances import load_target
from reqbench.protocols.takeover.scoring.target import gold_response, score_target

EXAMPLE = bundled_suite("takeover/project")


def test_alignment_requests_quote_the_cited_messages(tmp_path: Path) -> None:
    build_release(load_project(EXAMPLE), tmp_path / "build")
    rq = {n: tmp_path / "build" / f"RQ{n}" / f"DOCKSIDE_T001_RQ{n}.json" for n in (1, 2, 3)}
    inst = load_target(rq[3], rq[1], rq[2])
    texts = inst.message_texts()
    score = score_target(inst, gold_response(inst, "C1"), "C1", make_judge("exact"))
    alignment = [r for r in score.judge_records if r["contract"] in ("rq1_requirement_alignment",
                                                                     "requirement_alignment")]
    assert alignment
    for record in alignment:
        for item in record["request"]["data"]["items"].values():
            content = item["content"]
            for side in ("prediction", "gold"):
                ids = content[f"{side}_evidence_message_ids"]
                quoted = content[f"{side}_evidence_messages"]
                assert [q["message_id"] for q in quoted] == ids
                assert all(q["text"] == texts[str(q["message_id"])]["text"] and q["text"] for q in quoted)
    assert any(item["content"]["gold_evidence_messages"] for r in alignment
               for item in r["request"]["data"]["items"].values())


def _row(*judge_ids: str) -> RowOutcome:
    return RowOutcome(RowStatus.SCORED, {"score": {"judge_records": [{"judge_id": j} for j in judge_ids]}})


def test_each_rq_table_names_its_judge() -> None:
    assert rq_judge([_row(EXACT_JUDGE_ID), _row(EXACT_JUDGE_ID)]) == EXACT_LABEL == "exact: string-identity lower bound"
    assert rq_judge([_row("llm:gpt-5.6-sol"), _row()]) == "llm:gpt-5.6-sol"
    assert rq_judge([_row()]) == "no judge call"
