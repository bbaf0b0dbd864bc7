import datetime as dt

import pytest

from tasklet import TaskList


def test_weekly_completion_adds_next_occurrence():
    tl = TaskList()
    t = tl.add("bins", due="2024-01-01", repeat="weekly", tags=["home"], priority="high")
    tl.complete(t.id)
    nxt = tl.open()
    assert [(n.title, n.due, n.tags, n.priority, n.repeat) for n in nxt] == [
        ("bins", dt.date(2024, 1, 8), ["home"], "high", "weekly")]


def test_daily_completion_adds_next_day():
    tl = TaskList()
    tl.complete(tl.add("pills", due="2024-01-31", repeat="daily").id)
    assert [n.due for n in tl.open()] == [dt.date(2024, 2, 1)]


def test_repeat_without_due_rejected():
    with pytest.raises(ValueError):
        TaskList().add("x", repeat="weekly")


def test_repeat_survives_json_roundtrip():
    tl = TaskList()
    tl.add("bins", due="2024-01-01", repeat="weekly")
    assert TaskList.from_json(tl.to_json()).all()[0].repeat == "weekly"
