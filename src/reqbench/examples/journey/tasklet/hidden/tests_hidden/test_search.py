import pytest

from tasklet import TaskList


def _list():
    tl = TaskList()
    tl.add("Buy milk")
    tl.add("Call mum", tags=["family"])
    tl.add("Milkshake recipe")
    return tl


def test_search_title_case_insensitive():
    assert [t.title for t in _list().search("MILK")] == ["Buy milk", "Milkshake recipe"]


def test_search_matches_tag():
    assert [t.title for t in _list().search("family")] == ["Call mum"]


def test_search_empty_text_rejected():
    with pytest.raises(ValueError):
        _list().search("  ")
