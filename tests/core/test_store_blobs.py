"""Content-addressed parts (`core.store.blobs`): any JSON value reads back exactly, a repeated prefix costs
nothing, and a hostile shape (many tiny values, deep nesting, lone surrogates) costs no more than its size.
Real SQLite."""

from __future__ import annotations

import json
import secrets
import sqlite3

import pytest

from reqbench.core.store.blobs import BLOBS_DDL, Parts


@pytest.fixture
def conn() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(BLOBS_DDL)
    return db


def roundtrip(conn: sqlite3.Connection, value: object) -> tuple[object, int]:
    parts = Parts(conn)
    with conn:
        form = parts.pack(value)
    return Parts(conn).unpack(form), parts.added + len(form)


@pytest.mark.parametrize("value", [
    None, 0, "", [], {}, "x" * 10_000, [1, "two", None, {"three": [3.5]}] * 200,
    {"model": "m", "messages": [{"role": "user", "content": "\ud800 lone surrogate " + "y" * 600}]},
    {"k": {"nested": [{"deeper": ["z" * 300] * 3}] * 4}},
])
def test_every_value_reads_back_exactly(conn: sqlite3.Connection, value: object) -> None:
    back, _ = roundtrip(conn, value)
    assert json.dumps(back, sort_keys=True) == json.dumps(value, sort_keys=True)


def test_a_conversation_that_grew_by_one_message_adds_only_that_message(conn: sqlite3.Connection) -> None:
    messages = [{"role": "user", "content": secrets.token_hex(2000)} for _ in range(40)]
    _, first = roundtrip(conn, {"model": "m", "messages": messages})
    messages.append({"role": "assistant", "content": secrets.token_hex(2000)})
    _, second = roundtrip(conn, {"model": "m", "messages": messages})
    assert first > 40 * 4000 * 0.5  # the content was stored (hex compresses to about half)
    assert second < 4000 + 1200  # one new message, its list cell and the form


def test_many_tiny_values_are_one_part_not_one_row_each(conn: sqlite3.Connection) -> None:
    value = {"messages": [{"role": "user", "content": list(range(200_000))}]}
    back, added = roundtrip(conn, value)
    assert back == value and added < len(json.dumps(value))  # compressed, no per-value rows


def test_nesting_deeper_than_the_limit_is_one_part(conn: sqlite3.Connection) -> None:
    value: object = "leaf " * 100
    for _ in range(200):
        value = {"a": value}
    back, _ = roundtrip(conn, value)
    assert back == value
    assert conn.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] <= 10
