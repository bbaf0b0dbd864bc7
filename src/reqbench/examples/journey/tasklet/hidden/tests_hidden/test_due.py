import datetime as dt

import pytest

from tasklet import TaskList


def test_due_defaults_to_none():
    assert TaskList().add("a").due is None


def test_due_from_iso_string():
    assert TaskList().add("a", due="2024-03-05").due == dt.date(2024, 3, 5)


def test_due_from_date_object():
    assert TaskList().add("a", due=dt.date(2024, 1, 2)).due == dt.date(2024, 1, 2)


def test_invalid_due_rejected():
    with pytest.raises(ValueError):
        TaskList().add("a", due="5th of March")
