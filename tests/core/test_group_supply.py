"""`core.sandbox.group_supply`: cgroups made ahead and removed behind, each handed out once and fresh."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

import pytest

from reqbench.core.sandbox import cgroups, group_supply
from reqbench.core.sandbox.cgroups import Parent


@pytest.fixture
def parent() -> Iterator[Parent]:
    found = cgroups.parents()
    if not found:
        pytest.skip("no writable cgroup on this machine")
    group_supply.drain()
    yield found[0]
    group_supply.drain()


def test_a_group_made_ahead_is_handed_out_once_and_the_next_is_made(parent: Parent) -> None:
    group_supply.prepare(parent, pids=64, memory=None)
    group_supply.settle()
    (ready,) = group_supply.in_stock()
    assert ready.path.is_dir()
    first = group_supply.take(parent, pids=64, memory=None)
    assert first is not None and first.path == ready.path  # the one made ahead
    group_supply.settle()
    (following,) = group_supply.in_stock()  # taking asked for the next one
    assert following.path != first.path
    second = group_supply.take(parent, pids=64, memory=None)
    assert second is not None and second.path == following.path
    group_supply.retire(first)
    group_supply.retire(second)
    group_supply.settle()
    assert not first.path.exists() and not second.path.exists()


def test_groups_of_other_caps_are_not_handed_out(parent: Parent) -> None:
    group_supply.prepare(parent, pids=64, memory=None)
    group_supply.settle()
    (ready,) = group_supply.in_stock()
    other = group_supply.take(parent, pids=32, memory=None)
    assert other is not None and other.path != ready.path
    if "pids" in parent.controllers:
        assert (other.path / "pids.max").read_text().strip() == "32"
    group_supply.retire(other)


def test_a_group_waiting_too_long_is_removed_not_handed_out(parent: Parent,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    group_supply.prepare(parent, pids=64, memory=None)
    group_supply.settle()
    (old,) = group_supply.in_stock()
    monkeypatch.setattr(group_supply, "FRESH_SECONDS", -1.0)  # everything made ahead is too old now
    fresh = group_supply.take(parent, pids=64, memory=None)
    assert fresh is not None and fresh.path != old.path
    group_supply.settle()
    assert not old.path.exists()
    group_supply.retire(fresh)


def test_at_most_max_ahead_groups_wait(parent: Parent, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(group_supply, "MAX_AHEAD", 2)
    for _ in range(4):
        group_supply.prepare(parent, pids=64, memory=None)
    group_supply.settle()
    assert len(group_supply.in_stock()) == 2
    group_supply.drain()
    assert group_supply.in_stock() == []


def test_a_forked_child_is_never_handed_its_parents_groups(parent: Parent) -> None:
    group_supply.prepare(parent, pids=64, memory=None)
    group_supply.settle()
    (ready,) = group_supply.in_stock()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its stock is empty, and a take makes a group of its own
        try:
            os.close(read)
            group = group_supply.take(parent, pids=64, memory=None)
            seen = {"stock": len(group_supply.in_stock()), "took": str(group.path) if group else None}
            if group is not None:
                group.remove()
            group_supply.drain()  # the child's own next group, made ahead
            os.write(write, json.dumps(seen).encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        seen = json.loads(pipe.read())
    os.waitpid(pid, 0)
    assert seen["stock"] == 0 and seen["took"] not in (None, str(ready.path))
    assert group_supply.in_stock() == [ready]  # still the parent's, to hand out or remove
