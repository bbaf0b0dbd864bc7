"""Behaviour the library had from the start; must keep passing."""
import pytest

from tasklet import TaskList


def test_ids_increase_from_one():
    tl = TaskList()
    assert [tl.add("a").id, tl.add("b").id, tl.add("c").id] == [1, 2, 3]


def test_empty_title_rejected():
    with pytest.raises(ValueError):
        TaskList().add("   ")


def test_complete_and_open():
    tl = TaskList()
    a, b = tl.add("a"), tl.add("b")
    tl.complete(a.id)
    assert [t.id for t in tl.open()] == [b.id]


def test_remove_keeps_ids_unique():
    tl = TaskList()
    a = tl.add("a")
    tl.remove(a.id)
    assert tl.add("b").id == 2 and len(tl) == 1
