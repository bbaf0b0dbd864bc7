import datetime as dt

from tasklet import TaskList


def _list():
    tl = TaskList()
    tl.add("late-2", due="2024-01-05")
    tl.add("late-1", due="2024-01-01")
    tl.add("today", due="2024-01-10")
    tl.add("undated")
    return tl


def test_overdue_sorted_by_due():
    assert [t.title for t in _list().overdue("2024-01-10")] == ["late-1", "late-2"]


def test_overdue_excludes_done():
    tl = _list()
    tl.complete(2)
    assert [t.title for t in tl.overdue(dt.date(2024, 1, 10))] == ["late-2"]


def test_overdue_excludes_today_and_undated():
    titles = [t.title for t in _list().overdue("2024-01-10")]
    assert "today" not in titles and "undated" not in titles
