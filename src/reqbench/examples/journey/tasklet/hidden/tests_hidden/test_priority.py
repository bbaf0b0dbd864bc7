import pytest

from tasklet import TaskList


def test_priority_defaults_to_normal():
    assert TaskList().add("a").priority == "normal"


def test_priority_case_insensitive():
    assert TaskList().add("a", priority="HIGH").priority == "high"


def test_unknown_priority_rejected():
    with pytest.raises(ValueError):
        TaskList().add("a", priority="urgent")
