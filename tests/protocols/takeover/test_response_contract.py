"""The rq-agent-response-v1 contract: one clear problem per violation; valid responses frozen."""

from __future__ import annotations

import copy
import json

import pytest

from reqbench.core.hashing import sha256_json
from reqbench.protocols.takeover.phase_a.response import check_response, check_response_text
from reqbench.protocols.takeover.scoring.target import gold_response
from tests.protocols.takeover.score_helpers import SCHEMA, fixture_target, make_state

VISIBLE = [1, 2, 3, "msg-4"]


def _valid_act() -> dict:
    return {
        "requirements": [
            {
                "requirement_ref": "req_currency",
                "requirement_summary": "Model currency",
                "evidence_message_ids": [1, "msg-4"],
                "pre_task_state": make_state(),
            }
        ],
        "decision": "ACT",
        "post_task_states": [
            {
                "requirement_ref": "req_currency",
                "requirement_summary": "Model currency",
                "change_type": "MODIFIED",
                "removed_attribute_keys": [],
                "state": make_state({"currency": "AUD"}),
            }
        ],
        "clarifications": [],
    }


def _clarify() -> dict:
    r = _valid_act()
    r.update(
        decision="CLARIFY",
        post_task_states=None,
        clarifications=[
            {
                "requirement_ref": "req_currency",
                "requirement_summary": "Model currency",
                "dimension": "VALUE",
                "field": None,
                "missing_information": "which currency",
                "question": "AUD or CAD?",
            }
        ],
    )
    return r


def test_valid_responses_are_frozen_with_their_canonical_sha256() -> None:
    for raw in (_valid_act(), _clarify()):
        check = check_response(raw, VISIBLE)
        assert check.valid and check.problems == []
        assert check.frozen is not None and check.frozen.sha256 == sha256_json(raw)
    assert check_response(_valid_act(), VISIBLE).frozen.response.decision == "ACT"


def test_evidence_ids_are_compared_as_strings() -> None:
    raw = _valid_act()
    raw["requirements"][0]["evidence_message_ids"] = ["1", 2]
    assert check_response(raw, VISIBLE).valid


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda r: r["requirements"][0].update(requirement_ref="REQ_MODEL_CURRENCY"),
            "reserved internal-ID form",
        ),
        (lambda r: r["requirements"].append(copy.deepcopy(r["requirements"][0])), "must be unique"),
        (lambda r: r["post_task_states"].append(copy.deepcopy(r["post_task_states"][0])), "must be unique"),
        (
            lambda r: r["requirements"][0].update(evidence_message_ids=[1, 99]),
            "not in this condition's visible",
        ),
        (lambda r: r["requirements"][0].update(evidence_message_ids=[1, 1]), "repeats message id"),
        (lambda r: r["requirements"][0].update(evidence_message_ids=[True]), "must be a message id"),
        (lambda r: r.update(post_task_states=[]), "non-empty post_task_states"),
        (lambda r: r.update(post_task_states=None), "non-empty post_task_states"),
        (lambda r: r.update(clarifications=_clarify()["clarifications"]), "empty clarifications"),
        (lambda r: r.update(decision="MAYBE"), "decision must be ACT or CLARIFY"),
        (lambda r: r["post_task_states"][0]["state"].pop("execution"), "missing field 'execution'"),
        (lambda r: r["post_task_states"][0]["state"].update(priority="high"), "unexpected field 'priority'"),
        (
            lambda r: r["requirements"][0]["pre_task_state"].update(ambiguity={"status": "OPEN"}),
            "ambiguity must be null",
        ),
        (
            lambda r: r["requirements"][0]["pre_task_state"].update(lifecycle_status=3),
            "lifecycle_status must be",
        ),
        (lambda r: r["post_task_states"][0].update(removed_attribute_keys=["a", "a"]), "repeats a name"),
        (lambda r: r["requirements"][0].update(requirement_summary=""), "non-empty string"),
        (lambda r: r.update(notes="thinking..."), "unexpected field 'notes'"),
        (lambda r: r.pop("clarifications"), "missing field 'clarifications'"),
    ],
)
def test_each_contract_violation_is_one_clear_problem(mutate, expected: str) -> None:  # type: ignore[no-untyped-def]
    raw = _valid_act()
    mutate(raw)
    check = check_response(raw, VISIBLE)
    assert not check.valid
    assert len(check.problems) == 1, check.problems
    assert expected in check.problems[0]


def test_clarify_requires_null_post_states_and_a_clarification() -> None:
    raw = _clarify()
    raw["post_task_states"] = _valid_act()["post_task_states"]
    raw["clarifications"] = []
    problems = check_response(raw, VISIBLE).problems
    assert problems == [
        "decision CLARIFY requires post_task_states to be null",
        "decision CLARIFY requires at least one clarification",
    ]


def test_clarification_dimension_is_enumerated_and_refs_may_repeat_across_blockers() -> None:
    raw = _clarify()
    raw["clarifications"].append(dict(raw["clarifications"][0], dimension="SCOPE"))
    assert check_response(raw, VISIBLE).valid
    raw["clarifications"][1]["dimension"] = "COLOUR"
    assert "dimension must be one of" in check_response(raw, VISIBLE).problems[0]


def test_missing_or_garbled_responses_are_agent_failures_not_crashes() -> None:
    assert check_response_text(None, VISIBLE).problems == ["no response was submitted"]
    assert "not JSON" in check_response_text("{ oops", VISIBLE).problems[0]
    assert "must be a JSON object" in check_response_text("[1, 2]", VISIBLE).problems[0]


def test_reference_schema_agrees_on_fixture_gold_responses_and_branch_violations() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    if not SCHEMA.is_file():
        pytest.skip(f"reference response schema not present at {SCHEMA}")
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for target in ("T001", "T002"):
        inst = fixture_target(target)
        for cond in ("C1", "C2"):
            raw = gold_response(inst, cond)
            assert check_response(raw, inst.visible_message_ids(cond)).valid
            assert not list(validator.iter_errors(raw))
            broken = copy.deepcopy(raw)
            broken["decision"] = "CLARIFY" if raw["decision"] == "ACT" else "ACT"
            assert not check_response(broken, inst.visible_message_ids(cond)).valid
            assert list(validator.iter_errors(broken))
    for raw in (_valid_act(), _clarify()):
        assert not list(validator.iter_errors(raw))


def test_our_published_schema_accepts_gold_responses_and_rejects_extra_fields() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from reqbench.schemas import json_schema

    validator = jsonschema.Draft202012Validator(json_schema("takeover-response"))
    good = _valid_act()
    assert not list(validator.iter_errors(good))
    assert not list(validator.iter_errors(_clarify()))
    bad = copy.deepcopy(good)
    bad["post_task_states"][0]["state"]["priority"] = "high"
    assert list(validator.iter_errors(bad))
