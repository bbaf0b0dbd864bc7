from tasklet import TaskList


def test_tags_default_empty():
    assert TaskList().add("a").tags == []


def test_tags_normalised_and_unique():
    assert TaskList().add("a", tags=[" Home", "home", "ERRANDS"]).tags == ["home", "errands"]


def test_with_tag_case_insensitive():
    tl = TaskList()
    tl.add("a", tags=["home"])
    tl.add("b", tags=["work"])
    tl.add("c", tags=["Home"])
    assert [t.title for t in tl.with_tag("HOME")] == ["a", "c"]
