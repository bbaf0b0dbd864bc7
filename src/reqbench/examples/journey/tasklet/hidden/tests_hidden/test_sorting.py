import pytest

from tasklet import TaskList


def _list():
    tl = TaskList()
    tl.add("b", due="2024-02-01", priority="low")
    tl.add("A", priority="high")
    tl.add("c", due="2024-01-01")
    tl.add("d", due="2024-01-01", priority="high")
    return tl


def test_sort_by_due_undated_last():
    assert [t.title for t in _list().sorted_by("due")] == ["c", "d", "b", "A"]


def test_sort_by_priority_high_first():
    assert [t.title for t in _list().sorted_by("priority")] == ["A", "d", "c", "b"]


def test_sort_by_title_case_insensitive():
    assert [t.title for t in _list().sorted_by("title")] == ["A", "b", "c", "d"]


def test_sort_unknown_key_rejected():
    with pytest.raises(ValueError):
        _list().sorted_by("colour")
