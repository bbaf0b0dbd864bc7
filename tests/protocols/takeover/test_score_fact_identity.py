"""Text-equivalence facts are keyed by (field path, texts): two gold fields with equal text stay two facts,
and the judge request does not depend on the order of the response's fields (a stored response has its
keys sorted; re-scoring it from the recorded labels must find every answer)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.replay import ReplayJudge
from reqbench.protocols.takeover.judging import JudgeSession, text_request
from reqbench.protocols.takeover.phase_a.response import AgentResponse
from reqbench.protocols.takeover.scoring.comparators import FactBook, compare, parse_spec
from reqbench.protocols.takeover.scoring.rq2 import score_rq2
from tests.protocols.takeover.score_helpers import make_state, rq2_gold

TEXT = parse_spec({"comparator": "SEMANTIC_FACT"}, "x")


def test_two_fields_with_the_same_text_are_two_facts_whatever_their_order() -> None:
    forward, backward = FactBook(), FactBook()
    for path in ("attributes.logo_position", "attributes.footer_position"):
        compare(TEXT, "bottom center", "bottom center", forward, path)
    for path in ("attributes.footer_position", "attributes.logo_position"):
        compare(TEXT, "bottom center", "bottom center", backward, path)
    assert len(forward.facts) == 2
    assert sorted(p for _, _, p in forward.facts.values()) == ["attributes.footer_position",
                                                               "attributes.logo_position"]
    assert text_request(forward.facts).key() == text_request(backward.facts).key()


def _response(attributes: dict[str, str]) -> AgentResponse:
    return AgentResponse.model_validate({
        "requirements": [{"requirement_ref": "req_layout", "requirement_summary": "Page layout",
                          "evidence_message_ids": [], "pre_task_state": make_state(attributes)}],
        "decision": "ACT", "post_task_states": [{"requirement_ref": "req_layout",
                                                 "requirement_summary": "Page layout",
                                                 "change_type": "MODIFIED", "removed_attribute_keys": [],
                                                 "state": make_state(attributes)}],
        "clarifications": []})


def test_a_stored_response_with_sorted_keys_rescores_from_the_recorded_labels(tmp_path: Path) -> None:
    state = {"logo_position": "bottom center", "footer_position": "bottom center"}
    gold = rq2_gold({"REQ_LAYOUT": ("Page layout", make_state(state))})
    live = JudgeSession(ExactJudge())
    first = score_rq2(gold, _response(state), live)
    assert (first.status, first.attribute_score) == ("scored", 1.0)
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(r) + "\n" for r in live.records), encoding="utf-8")
    stored = _response(dict(sorted(state.items())))  # the run store writes results with sorted keys
    again = score_rq2(gold, stored, JudgeSession(ReplayJudge(labels)))
    assert (again.status, again.attribute_score) == ("scored", pytest.approx(1.0))
