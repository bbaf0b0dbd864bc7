import datetime as dt

import pytest

from tasklet import TaskList


def _list():
    tl = TaskList()
    tl.add("a", due="2024-01-02", priority="high", tags=["x"])
    tl.add("b")
    tl.complete(2)
    return tl


def test_roundtrip_preserves_fields():
    back = TaskList.from_json(_list().to_json())
    a, b = back.all()
    assert (a.id, a.title, a.due, a.priority, a.tags, a.done) == (1, "a", dt.date(2024, 1, 2), "high", ["x"], False)
    assert (b.id, b.done) == (2, True)


def test_ids_continue_after_load():
    tl = _list()
    tl.remove(2)
    assert TaskList.from_json(tl.to_json()).add("c").id == 3


def test_malformed_document_rejected():
    with pytest.raises(ValueError):
        TaskList.from_json('{"nothing": 1}')
