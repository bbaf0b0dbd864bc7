"""Targets, snapshots and gold rows (paper A.1; FORMAT.md (d)) on a hand-built project."""

from __future__ import annotations

from reqbench.protocols.takeover.annotation.replay import replay
from reqbench.protocols.takeover.construction.gold import gold_row, gold_states
from reqbench.protocols.takeover.construction.targets import build_targets

from .ledger_factory import event, files, load, messages, requirement

M = messages("cfcfcfcc")


def project_with_targets(target_mids: list[int]):
    e = lambda rid, n, mid, t, **kw: event(rid, n, mid, t, M, **kw)  # noqa: E731
    reqs = [
        requirement(
            "REQ_A",
            [
                e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                e("REQ_A", 2, 5, "MODIFY", supporting=[4], value_updates={"a": 2}),
                e("REQ_A", 3, 5, "RESUME"),
                e("REQ_A", 4, 7, "MODIFY", value_updates={"a": 3}),
            ],
        ),
        requirement("REQ_B", [e("REQ_B", 1, 5, "INTRODUCE", value_updates={"b": 1})]),
        requirement(
            "REQ_C",
            [
                e("REQ_C", 1, 3, "INTRODUCE", supporting=[6], value_updates={"c": 1}),
                e("REQ_C", 2, 5, "REMOVE"),
            ],
        ),
        requirement("REQ_D", [e("REQ_D", 1, 2, "INTRODUCE", value_updates={"d": 1})]),
        requirement("REQ_E", []),
        requirement("REQ_F", [e("REQ_F", 1, 7, "INTRODUCE", value_updates={"f": 1})]),
    ]
    project = load(*files(M, reqs, target_mids))
    graph = replay(project)
    return project, graph, build_targets(project, graph)


def test_snapshots_follow_catalog_position_and_keep_removed_and_omit_new_before() -> None:
    _, _, (t,) = project_with_targets([5])
    assert t.pre == [("REQ_A", "REQ_A_S001"), ("REQ_C", "REQ_C_S001"), ("REQ_D", "REQ_D_S001")]
    # several events at the target: the last wins; new atom only after; removed atom stays listed
    assert t.post == [
        ("REQ_A", "REQ_A_S003"),
        ("REQ_B", "REQ_B_S001"),
        ("REQ_C", "REQ_C_S002"),
        ("REQ_D", "REQ_D_S001"),
    ]
    assert t.task_event_ids == ["REQ_A_E002", "REQ_A_E003", "REQ_B_E001", "REQ_C_E002"]
    assert t.affected_requirement_ids == ["REQ_A", "REQ_B", "REQ_C"]
    assert t.preserved_requirement_ids == ["REQ_D"]


def test_gold_row_fields_and_file_envelope() -> None:
    project, _, targets = project_with_targets([5, 7])
    row = gold_row(project, targets[0])
    assert row["task_gold_id"] == "P1_T001_GOLD" and row["candidate_id"] == "P1_CANDIDATE_MSG_5"
    assert (row["conversation_turn_index"], row["history_turn_count"]) == (5, 4)
    assert row["target_task"] == {"source_message_id": 5, "speaker": "client", "text": "message 5"}
    assert row["pre_task_gold_state"]["boundary"] == {"before_message_id": 5}
    assert row["post_task_gold_state"]["boundary"] == {"through_message_id": 5}
    assert row["post_task_gold_state"]["requirement_states"][2] == {
        "requirement_id": "REQ_C",
        "state_id": "REQ_C_S002",
    }
    doc = gold_states(project, targets)
    assert doc["schema_version"] == "task-gold-v2" and [r["target_id"] for r in doc["task_gold_states"]] == [
        "P1_T001",
        "P1_T002",
    ]


def test_pre_state_of_a_later_target_extends_the_post_state_of_an_earlier_one() -> None:
    _, _, (t1, t2) = project_with_targets([5, 7])
    assert dict(t2.pre) == dict(t1.post)
    assert t2.post[-1] == ("REQ_F", "REQ_F_S001") and ("REQ_A", "REQ_A_S004") in t2.post


def test_boundaries_use_catalog_order_not_numeric_message_ids() -> None:
    msgs = messages("cfcc")
    for m, new_id in zip(msgs, [30, 20, 10, 40], strict=True):
        m["message_id"] = new_id
    reqs = [
        requirement(
            "REQ_A",
            [
                event("REQ_A", 1, 20, "INTRODUCE", msgs, value_updates={"a": 1}),
                event("REQ_A", 2, 10, "MODIFY", msgs, value_updates={"a": 2}),
            ],
        )
    ]
    project = load(*files(msgs, reqs, [10]))
    (t,) = build_targets(project, replay(project))
    assert t.position == 2 and t.pre == [("REQ_A", "REQ_A_S001")] and t.post == [("REQ_A", "REQ_A_S002")]
