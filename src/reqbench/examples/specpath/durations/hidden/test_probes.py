import pytest

from durations import parse_duration


def test_compound_units_add_up():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2m5s") == 125


def test_bare_number_means_seconds():
    assert parse_duration("90") == 90


def test_negative_duration_is_rejected():
    with pytest.raises(ValueError):
        parse_duration("-5s")


def test_plain_seconds_still_work():
    assert parse_duration("45s") == 45
