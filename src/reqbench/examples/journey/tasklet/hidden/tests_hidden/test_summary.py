from tasklet import TaskList


def _list():
    tl = TaskList()
    tl.add("a", due="2024-01-01", priority="high")
    tl.add("b", priority="low")
    tl.add("c", due="2024-01-01")
    tl.complete(3)
    return tl


def test_summary_counts():
    s = _list().summary("2024-01-05")
    assert (s["total"], s["done"], s["open"], s["overdue"]) == (3, 1, 2, 1)


def test_summary_open_by_priority():
    assert _list().summary("2024-01-05")["by_priority"] == {"high": 1, "normal": 0, "low": 1}
