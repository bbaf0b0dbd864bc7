"""Replay semantics (paper A.1, FORMAT.md (b)) on hand-built event logs with hand-computed states."""

from __future__ import annotations

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.annotation.replay import replay

from .ledger_factory import event, files, load, messages, requirement

M = messages("cfcfcfcfc")


def _x_events() -> list[dict]:
    e = lambda n, mid, t, **kw: event("REQ_X", n, mid, t, M, **kw)  # noqa: E731
    return [
        e(1, 1, "AMBIGUOUS", ambiguity={"dimension": "SCOPE", "description": "which sites?"}),
        e(2, 2, "IMPLEMENTATION_CLAIM", execution={"status": "CLAIMED_WORKING", "observed_behavior": "done"}),
        e(
            3,
            3,
            "INTRODUCE",
            supporting=[1, 2],
            value_updates={"a": 1, "b": [1, 2]},
            scope_updates={"persistence": "P", "components": ["C"], "contexts": None},
            resolves_ambiguity_event_ids=["REQ_X_E001"],
        ),
        e(4, 4, "RUNTIME_FAILURE", execution={"status": "FAILED", "observed_behavior": "crash"}),
        e(
            5,
            5,
            "MODIFY",
            value_removals=["a"],
            value_updates={"c": "x"},
            scope_updates={"persistence": None, "components": None, "contexts": ["K"]},
        ),
        e(6, 5, "DEFER"),
        e(7, 6, "REMOVE"),
        e(
            8,
            7,
            "RUNTIME_VERIFICATION",
            execution={"status": "VERIFIED_WORKING", "observed_behavior": "gone"},
        ),
    ]


def _graph(events: list[dict], rid: str = "REQ_X"):
    return replay(load(*files(M, [requirement(rid, events)], []))).graph(rid)


def test_replay_builds_one_node_per_event_with_hand_computed_states() -> None:
    g = _graph(_x_events())
    n = g.nodes
    assert [x["state_id"] for x in n] == [f"REQ_X_S{i:03d}" for i in range(1, 9)]
    assert g.initialization_mode == "OBSERVED_HISTORY" and g.has_explicit_introduce is True
    # observed history: empty baseline, null unknowns, no invented INTRODUCE
    assert n[0]["attributes"] == {} and n[0]["scope"] == {
        "persistence": None,
        "components": None,
        "contexts": None,
    }
    assert n[0]["lifecycle_status"] is None
    assert n[0]["ambiguity"] == {
        "REQ_X_E001": {
            "status": "OPEN",
            "dimension": "SCOPE",
            "description": "which sites?",
            "source_event_id": "REQ_X_E001",
        }
    }
    assert n[1]["execution"] == {
        "status": "CLAIMED_WORKING",
        "observed_behavior": "done",
        "source_event_id": "REQ_X_E002",
    }
    assert n[1]["supporting_event_ids"] == ["REQ_X_E001", "REQ_X_E002"]
    # INTRODUCE after an observed baseline clears its implementation evidence and closes the ambiguity
    assert n[2]["attributes"] == {"a": 1, "b": [1, 2]} and n[2]["lifecycle_status"] == "ACTIVE"
    assert n[2]["scope"] == {"persistence": "P", "components": ["C"], "contexts": None}
    assert n[2]["ambiguity"] is None and n[2]["execution"] is None
    assert n[2]["supporting_event_ids"] == ["REQ_X_E003"]
    assert n[3]["execution"]["status"] == "FAILED"
    # MODIFY: removal before update, null scope dimension unchanged, execution cleared, removal stays support
    assert n[4]["attributes"] == {"b": [1, 2], "c": "x"}
    assert n[4]["scope"] == {"persistence": "P", "components": ["C"], "contexts": ["K"]}
    assert n[4]["execution"] is None and n[4]["lifecycle_status"] == "ACTIVE"
    assert n[4]["supporting_event_ids"] == ["REQ_X_E003", "REQ_X_E005"]
    assert n[5]["lifecycle_status"] == "DEFERRED"
    assert n[5]["supporting_event_ids"] == ["REQ_X_E003", "REQ_X_E005", "REQ_X_E006"]
    assert n[6]["lifecycle_status"] == "REMOVED" and n[6]["attributes"] == {"b": [1, 2], "c": "x"}
    # implementation evidence after REMOVE changes only execution (paper A.1)
    assert n[7]["lifecycle_status"] == "REMOVED" and n[7]["attributes"] == n[6]["attributes"]
    assert n[7]["execution"]["status"] == "VERIFIED_WORKING"
    assert n[7]["supporting_event_ids"] == ["REQ_X_E003", "REQ_X_E005", "REQ_X_E007", "REQ_X_E008"]


def test_edges_chain_the_nodes_and_copy_message_links() -> None:
    edges = _graph(_x_events()).edges
    assert edges[0]["from_state_id"] is None
    assert [e["from_state_id"] for e in edges[1:]] == [e["to_state_id"] for e in edges[:-1]]
    assert edges[2]["supporting_message_ids"] == [1, 2] and edges[0]["supporting_message_ids"] == []
    assert edges[4]["value_removals"] == ["a"] and edges[3]["value_removals"] is None
    assert list(edges[0]) == [
        "from_state_id",
        "to_state_id",
        "event_id",
        "event_type",
        "source_message_id",
        "supporting_message_ids",
        "value_removals",
    ]


def test_modify_on_observed_history_leaves_lifecycle_unknown_and_may_remove_unseen_keys() -> None:
    e = lambda n, mid, t, **kw: event("REQ_Y", n, mid, t, M, **kw)  # noqa: E731
    g = _graph([e(1, 1, "MODIFY", value_removals=["ghost"], value_updates={"k": 1})], "REQ_Y")
    assert g.nodes[0]["lifecycle_status"] is None and g.nodes[0]["attributes"] == {"k": 1}
    assert g.nodes[0]["supporting_event_ids"] == ["REQ_Y_E001"]


@pytest.mark.parametrize(
    "events",
    [
        # baseline complete: the key never existed
        [("INTRODUCE", {"value_updates": {"k": 1}}), ("MODIFY", {"value_removals": ["nope"]})],
        # observed history: removing the same key twice
        [("MODIFY", {"value_removals": ["g"]}), ("MODIFY", {"value_removals": ["g"]})],
    ],
)
def test_removing_a_key_that_cannot_exist_is_rejected(events: list) -> None:
    evs = [event("REQ_Z", i, i, t, M, **kw) for i, (t, kw) in enumerate(events, start=1)]
    with pytest.raises(InputError, match=r"REQ_Z_E002.*removes attribute .*\(rule E19\)"):
        load(*files(M, [requirement("REQ_Z", evs)], []))


def test_requirement_without_events_is_kept_with_empty_graph() -> None:
    g = _graph([], "REQ_EMPTY")
    assert (g.initialization_mode, g.nodes, g.edges, g.has_explicit_introduce) == ("NO_EVENTS", [], [], False)


def test_explicit_introduce_mode_and_node_key_order() -> None:
    g = _graph([event("REQ_I", 1, 1, "INTRODUCE", M, value_updates={"v": 1})], "REQ_I")
    assert g.initialization_mode == "EXPLICIT_INTRODUCE"
    assert list(g.nodes[0]) == [
        "state_id",
        "attributes",
        "scope",
        "lifecycle_status",
        "ambiguity",
        "execution",
        "supporting_event_ids",
    ]
