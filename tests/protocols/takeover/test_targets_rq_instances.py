"""RQ1-RQ3 construction gold on hand-built projects (FORMAT.md (f.2)-(f.4))."""

from __future__ import annotations

from reqbench.protocols.takeover.annotation.replay import replay
from reqbench.protocols.takeover.construction.manifest import instance_manifest
from reqbench.protocols.takeover.construction.rq1 import rq1_gold
from reqbench.protocols.takeover.construction.rq2 import rq2_gold
from reqbench.protocols.takeover.construction.rq3 import rq3_gold
from reqbench.protocols.takeover.construction.rq_instances import build_rq_instances, target_contexts
from reqbench.protocols.takeover.construction.specs import finalize_spec, typed_spec
from reqbench.protocols.takeover.construction.targets import build_targets

from .ledger_factory import event, files, load, messages, requirement

M = messages("cfcfcfcc")


def _ctx(reqs: list[dict], target_mid: int, target_id: str | None = None):
    normalized, annotation, targets = files(M, reqs, [target_mid])
    if target_id:
        targets["selected_targets"][0]["target_id"] = target_id
    project = load(normalized, annotation, targets)
    graph = replay(project)
    (ctx,) = target_contexts(project, graph, build_targets(project, graph), "rel-1")
    return ctx


def _e(rid: str, n: int, mid: int, t: str, **kw):
    return event(rid, n, mid, t, M, **kw)


def test_overlapping_support_groups_merge_into_the_first_and_family_messages_become_context() -> None:
    reqs = [
        requirement(
            "REQ_G",
            [
                _e("REQ_G", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                _e("REQ_G", 2, 3, "MODIFY", value_updates={"b": 1}),
                _e("REQ_G", 3, 5, "MODIFY", supporting=[1, 3], value_updates={"c": 1}),
                _e("REQ_G", 4, 7, "MODIFY", value_updates={"a": 2}),
            ],
        ),
        requirement("REQ_H", [_e("REQ_H", 1, 2, "INTRODUCE", value_updates={"h": 1})]),
    ]
    gold = rq1_gold(_ctx(reqs, 7))
    ev = gold["evidence"]["REQ_G"]
    assert ev["current_support_event_ids"] == ["REQ_G_E001", "REQ_G_E002", "REQ_G_E003"]
    assert ev["required_evidence_groups"] == [
        {"group_id": "REQ_G_EG001", "acceptable_message_ids": [1, 3, 5]}
    ]
    assert ev["family_trajectory_message_ids"] == [1, 2, 3, 5] and ev["neutral_context_message_ids"] == [2]
    assert gold["relevant_requirement_ids"] == ["REQ_G"] and gold["new_requirement_ids"] == []


def test_disjoint_support_gives_one_group_per_event_and_removed_keys_keep_support() -> None:
    reqs = [
        requirement(
            "REQ_G",
            [
                _e("REQ_G", 1, 1, "INTRODUCE", value_updates={"a": 1, "b": 2}),
                _e("REQ_G", 2, 3, "MODIFY", value_removals=["b"]),
                _e("REQ_G", 3, 5, "MODIFY", value_updates={"a": 2}),
            ],
            family=None,
        )
    ]
    ev = rq1_gold(_ctx(reqs, 5))["evidence"]["REQ_G"]
    assert [g["acceptable_message_ids"] for g in ev["required_evidence_groups"]] == [[1], [3]]
    assert ev["family_trajectory_message_ids"] == [1, 3] and ev["context_message_ids"] == []


def test_typed_specs_follow_type_and_path_and_release_review_rules() -> None:
    assert typed_spec(None, ("lifecycle_status",))["comparator"] == "SKIP"
    assert typed_spec(None, ("execution",))["comparator"] == "NULL_EXACT"
    assert typed_spec("TASK_LOCAL", ("scope", "persistence"))["comparator"] == "NORMALIZED_EXACT"
    assert typed_spec("blue", ("attributes", "colour"))["comparator"] == "SEMANTIC_FACT"
    assert typed_spec(True, ("attributes", "x"))["comparator"] == "BOOLEAN_EXACT"
    assert typed_spec(2.5, ("attributes", "x"))["comparator"] == "NUMBER_EXACT"
    amb = typed_spec([{"status": "OPEN", "dimension": "VALUE", "description": "d"}], ("ambiguity",))
    assert amb["comparator"] == "UNORDERED_RECORD_F1" and list(amb["item_fields"]) == [
        "description",
        "dimension",
        "status",
    ]
    assert amb["matching_key_fields"] == ["dimension", "description"]
    empty = finalize_spec(typed_spec({}, ("attributes",)), ("attributes",))
    assert (empty["comparator"], empty["score"]) == ("SKIP", False)
    seq = typed_spec({"board_chain_order": ["a", "b"], "tags": ["x"]}, ("attributes",))
    seq = finalize_spec(seq, ("attributes",))
    assert seq["fields"]["board_chain_order"]["comparator"] == "ORDERED_LIST"
    assert seq["fields"]["tags"]["comparator"] == "SET_F1"


def test_rq2_states_are_semantic_pre_states_without_internal_ids() -> None:
    reqs = [
        requirement(
            "REQ_A",
            [
                _e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                _e("REQ_A", 2, 3, "AMBIGUOUS", ambiguity={"dimension": "VALUE", "description": "?"}),
                _e(
                    "REQ_A",
                    3,
                    5,
                    "MODIFY",
                    value_updates={"a": 2},
                    resolves_ambiguity_event_ids=["REQ_A_E002"],
                ),
            ],
        )
    ]
    gold = rq2_gold(_ctx(reqs, 5))
    assert gold["states"]["REQ_A"] == {
        "attributes": {"a": 1},
        "scope": {"persistence": None, "components": None, "contexts": None},
        "lifecycle_status": "ACTIVE",
        "ambiguity": [{"status": "OPEN", "dimension": "VALUE", "description": "?"}],
        "execution": None,
    }
    assert gold["state_provenance"]["REQ_A"] == {
        "state_id": "REQ_A_S002",
        "supporting_event_ids": ["REQ_A_E001", "REQ_A_E002"],
    }


def test_rq3_delta_and_act_when_no_ambiguity_remains_open() -> None:
    reqs = [
        requirement(
            "REQ_A",
            [
                _e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1, "b": {"x": 1, "y": 2}}),
                _e(
                    "REQ_A",
                    2,
                    5,
                    "MODIFY",
                    value_removals=["a"],
                    value_updates={"b": {"x": 1, "y": 3}, "c": 0},
                ),
            ],
        )
    ]
    gold = rq3_gold(_ctx(reqs, 5))
    delta = gold["affected_requirement_transitions"]["REQ_A"]["delta"]
    assert delta == {
        "change_type": "MODIFIED",
        "changed_fields": ["attributes"],
        "changed_paths": ["attributes.a", "attributes.b.y", "attributes.c"],
        "removed_paths": ["attributes.a"],
    }
    assert gold["final_gold_by_condition"]["C1"] == gold["final_gold_by_condition"]["C2"]
    assert gold["final_gold_by_condition"]["C1"]["decision"] == "ACT"
    assert gold["final_gold_by_condition"]["C1"]["post_task_states"]["REQ_A"]["attributes"] == {
        "b": {"x": 1, "y": 3},
        "c": 0,
    }


def _ambiguous_at_target() -> list[dict]:
    return [
        requirement(
            "REQ_A",
            [
                _e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                _e(
                    "REQ_A", 2, 5, "AMBIGUOUS", ambiguity={"dimension": "VALUE", "description": "AUD or CAD?"}
                ),
            ],
        )
    ]


def test_rq3_open_ambiguity_on_affected_post_state_gives_clarify_with_blocker() -> None:
    gold = rq3_gold(_ctx(_ambiguous_at_target(), 5))
    assert gold["project_decision_candidate"]["value"] == "CLARIFY"
    final = gold["final_gold_by_condition"]["C2"]
    assert final["decision"] == "CLARIFY" and final["post_task_states"] is None
    assert final["blocking_clarifications"] == [
        {
            "requirement_id": "REQ_A",
            "dimension": "VALUE",
            "field": None,
            "missing_information": "AUD or CAD?",
            "acceptable_question_facts": [
                "ask the client to resolve the material choice described as: AUD or CAD?"
            ],
        }
    ]
    assert gold["blocking_ambiguity_candidates"][0]["blocking_status"] == "PENDING_MATERIALITY_REVIEW"


def test_rq3_decision_overrides_replace_the_mechanical_candidate() -> None:
    act = rq3_gold(_ctx(_ambiguous_at_target(), 5, target_id="44102153_T002"))
    assert act["project_decision_candidate"]["value"] == "CLARIFY"
    assert act["final_gold_by_condition"]["C1"]["decision"] == "ACT"
    reqs = [
        requirement(
            "REQ_A",
            [
                _e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                _e("REQ_A", 2, 5, "MODIFY", value_updates={"a": 2}),
            ],
        )
    ]
    clarify = rq3_gold(_ctx(reqs, 5, target_id="37923084_T004"))
    assert clarify["project_decision_candidate"]["value"] == "ACT"
    blockers = clarify["final_gold_by_condition"]["C1"]["blocking_clarifications"]
    assert clarify["final_gold_by_condition"]["C1"]["decision"] == "CLARIFY"
    assert blockers[0]["field"] == "domain_candidate"


def test_a_target_without_pre_request_requirements_gets_no_rq_instance() -> None:
    # B.1 / Table 7: the formal diagnostic set is the targets with RQ1, RQ2 and RQ3 files (350 -> 349)
    reqs = [requirement("REQ_N", [_e("REQ_N", 1, 5, "INTRODUCE", value_updates={"n": 1})])]
    built = build_rq_instances([_ctx(reqs, 5)])
    assert [len(built[rq]) for rq in ("RQ1", "RQ2", "RQ3")] == [0, 0, 0]
    manifest = instance_manifest("P", "R", [_ctx(reqs, 5)], built)
    assert manifest["diagnostic_exclusions"] == [{"target_id": _ctx(reqs, 5).target.target_id,
                                                  "reason": "NO_PRE_REQUEST_REQUIREMENT"}]


def test_a_new_requirement_beside_a_pre_existing_one_is_scored_in_rq3_as_introduced() -> None:
    reqs = [requirement("REQ_A", [_e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                                  _e("REQ_A", 2, 5, "MODIFY", value_updates={"a": 2})]),
            requirement("REQ_N", [_e("REQ_N", 1, 5, "INTRODUCE", value_updates={"n": 1})])]
    built = build_rq_instances([_ctx(reqs, 5)])
    assert [len(built[rq]) for rq in ("RQ1", "RQ2", "RQ3")] == [1, 1, 1]
    inst = built["RQ3"][0]
    assert inst["applicable_rqs"] == ["RQ1", "RQ2", "RQ3"]
    assert inst["construction_gold"]["affected_requirement_transitions"]["REQ_N"]["delta"]["change_type"] == (
        "INTRODUCED")
