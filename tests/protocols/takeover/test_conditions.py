"""C1/C2 history conditions and their availability (paper B.2; FORMAT.md (e)), with hand-computed ids."""

from __future__ import annotations

from reqbench.protocols.takeover.annotation.replay import replay
from reqbench.protocols.takeover.construction.conditions import (
    active_rqs,
    c1_history,
    c2_history,
    condition_available,
    direct_requirements,
    history_fingerprint,
)
from reqbench.protocols.takeover.construction.rq_common import applicable_rqs, diagnostic_exclusion
from reqbench.protocols.takeover.construction.targets import build_targets

from .ledger_factory import event, files, load, messages, requirement

M = messages("cfcfcfcc")


def _setup(target_mids: list[int]):
    e = lambda rid, n, mid, t, **kw: event(rid, n, mid, t, M, **kw)  # noqa: E731
    reqs = [
        requirement(
            "REQ_A",
            [
                e("REQ_A", 1, 1, "INTRODUCE", value_updates={"a": 1}),
                e("REQ_A", 2, 5, "MODIFY", supporting=[4], value_updates={"a": 2}),
            ],
        ),
        requirement(
            "REQ_C",
            [
                e("REQ_C", 1, 3, "INTRODUCE", supporting=[6], value_updates={"c": 1}),
                e("REQ_C", 2, 5, "DEFER"),
            ],
        ),
        requirement(
            "REQ_D", [e("REQ_D", 1, 2, "INTRODUCE", value_updates={"d": 1})]
        ),  # same family, unaffected
        requirement(
            "REQ_N",
            [
                e("REQ_N", 1, 5, "INTRODUCE", value_updates={"n": 1}),
                e("REQ_N", 2, 7, "MODIFY", value_updates={"n": 2}),
            ],
        ),
        requirement("REQ_M", [e("REQ_M", 1, 8, "INTRODUCE", value_updates={"m": 1})]),
    ]
    project = load(*files(M, reqs, target_mids))
    graph = replay(project)
    return project, graph, build_targets(project, graph)


def test_c2_is_the_direct_trajectories_only() -> None:
    project, graph, (t,) = _setup([5])
    assert direct_requirements(t) == ["REQ_A", "REQ_C"]  # REQ_N is new at the target
    assert c1_history(project, t) == [1, 2, 3, 4]
    # A@1 and C@3; C's support 6 lies after the target; the target edge's support 4 is not added;
    # REQ_D (same family, not affected) contributes nothing
    assert c2_history(project, graph, t) == [1, 3]


def test_target_with_only_new_requirements_is_outside_the_formal_diagnostic_set() -> None:
    # B.1: the selected target that introduces only new requirements is excluded from RQ1-RQ3 (350 -> 349)
    project, graph, (t,) = _setup([8])
    assert direct_requirements(t) == [] and c2_history(project, graph, t) == []
    assert applicable_rqs(t) == [] and diagnostic_exclusion(t) == "NO_PRE_REQUEST_REQUIREMENT"
    assert active_rqs("C1", applicable_rqs(t)) == [] and active_rqs("C2", applicable_rqs(t)) == []
    _, _, (kept,) = _setup([5])
    assert applicable_rqs(kept) == ["RQ1", "RQ2", "RQ3"] and diagnostic_exclusion(kept) is None


def test_c2_uses_the_whole_earlier_trajectory_of_a_direct_requirement() -> None:
    project, graph, (t,) = _setup([7])
    assert direct_requirements(t) == ["REQ_N"]
    assert c2_history(project, graph, t) == [5]


def test_rq1_is_available_under_c1_only_and_fingerprint_is_canonical_sha() -> None:
    assert [condition_available(rq, "C2") for rq in ("RQ1", "RQ2", "RQ3")] == [False, True, True]
    assert active_rqs("C1", ["RQ1", "RQ2", "RQ3"]) == ["RQ1", "RQ2", "RQ3"]
    assert active_rqs("C2", ["RQ1", "RQ2", "RQ3"]) == ["RQ2", "RQ3"]
    # canonical sha of the released T001/C2 id list (rq_instance_manifest history_sha256)
    assert (
        history_fingerprint([15, 17, 18, 22])
        == "2dd972a1b6a993d101fa6aa6881d4cbe97c3400bb3f0ef85f167e1f2a905d297"
    )
