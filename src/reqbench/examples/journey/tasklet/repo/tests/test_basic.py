from tasklet import TaskList


def test_add_assigns_increasing_ids():
    tl = TaskList()
    assert [tl.add("a").id, tl.add("b").id] == [1, 2]


def test_complete_marks_done():
    tl = TaskList()
    t = tl.add("a")
    tl.complete(t.id)
    assert tl.get(t.id).done
