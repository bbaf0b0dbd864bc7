import pytest

from kvconf import parse


def test_comment_lines_are_ignored():
    assert parse("# connection settings\nhost=db\n   # trailing note") == {"host": "db"}


def test_keys_and_values_are_stripped():
    assert parse("  Name =  Ada Lovelace  ") == {"Name": "Ada Lovelace"}


def test_repeated_key_is_rejected():
    with pytest.raises(ValueError):
        parse("port=1\nport=2")


def test_blank_lines_are_ignored():
    assert parse("a=1\n\n\nb=2\n") == {"a": "1", "b": "2"}
