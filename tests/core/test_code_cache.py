"""The table of code the standard library generates at import (`reqbench.core.code_cache`), through real
interpreters: a process writes what it compiled, the next one executes the table's code instead of
compiling, the classes and annotations behave the same, and a table that does not read back whole, or a
cache that cannot be written, changes nothing but the speed."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import pytest

PROGRAM = """
import dataclasses, json, sys, typing
import reqbench.core

@dataclasses.dataclass(frozen=True, order=True)
class Point:
    x: int
    y: int = 2
    tags: tuple[str, ...] = ()

p, q = Point(1), Point(1, 3, ("a",))
try:
    p.x = 5
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
def annotated(a: "int | None", b: "tuple[Point, ...]") -> None: ...
print(json.dumps([repr(p), repr(q), p == Point(1), p < q, hash(p) == hash(Point(1)), frozen,
                  typing.get_type_hints(annotated) == {"a": int | None, "b": tuple[Point, ...], "return": type(None)},
                  len(reqbench.core.code_cache._added)]))
"""
"""Defines one frozen, ordered dataclass after `reqbench.core` is imported and prints how it behaves, then
how many texts this process compiled that the table did not hold."""


def _run(cache: Path, **env: str) -> list[object]:
    import json

    out = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, check=True,
                         env={**os.environ, "REQBENCH_CACHE": str(cache), **env})
    return list(json.loads(out.stdout))


def _table(cache: Path) -> Path:
    return cache / "compiled-code" / f"{sys.implementation.cache_tag}.marshal"


BEHAVIOUR = ["Point(x=1, y=2, tags=())", "Point(x=1, y=3, tags=('a',))", True, True, True, True, True]


def test_a_second_process_executes_the_table_instead_of_compiling(tmp_path: Path) -> None:
    first = _run(tmp_path)
    assert first[:7] == BEHAVIOUR and isinstance(first[7], int) and first[7] >= 6  # init, repr, eq, order...
    table = _table(tmp_path)
    assert table.read_bytes().startswith(MAGIC_NUMBER)
    second = _run(tmp_path)
    assert second == [*BEHAVIOUR, 0]  # nothing compiled: every method came from the table


def test_the_table_is_what_runs(tmp_path: Path) -> None:
    """Proof that the table is used, not merely written: an entry replaced by other code (what only whoever
    can write the reqbench cache could do) is the code the next process runs."""
    _run(tmp_path)
    table = _table(tmp_path)
    entries = marshal.loads(table.read_bytes()[len(MAGIC_NUMBER):])
    repr_key = next(key for key in entries if " def __repr__(" in key[1] and "tags={self.tags!r}" in key[1])
    swapped = repr_key[1].replace("return ", "return 'from-the-table' or ", 1)
    entries[repr_key] = compile(swapped, "<string>", "exec", dont_inherit=True)
    table.write_bytes(MAGIC_NUMBER + marshal.dumps(entries))
    assert _run(tmp_path)[0] == "from-the-table"


@pytest.mark.parametrize("content", [b"", b"garbage", MAGIC_NUMBER + b"\x00\x01", MAGIC_NUMBER + marshal.dumps([1]),
                                     MAGIC_NUMBER + marshal.dumps({("exec", "def f(): pass"): "not code"}),
                                     MAGIC_NUMBER + marshal.dumps({"def f(): pass": compile("1", "<string>", "eval")}),
                                     b"\x00\x00\r\n" + marshal.dumps({})])
def test_a_table_that_does_not_read_back_whole_is_ignored(tmp_path: Path, content: bytes) -> None:
    table = _table(tmp_path)
    table.parent.mkdir(parents=True)
    table.write_bytes(content)
    result = _run(tmp_path)
    assert result[:7] == BEHAVIOUR and int(str(result[7])) >= 6  # compiled afresh
    assert _run(tmp_path) == [*BEHAVIOUR, 0]  # and written whole this time


def test_an_unwritable_cache_changes_nothing_but_the_speed(tmp_path: Path) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would be")
    assert _run(blocker)[:7] == BEHAVIOUR
    assert _run(blocker)[:7] == BEHAVIOUR


def test_switched_off_it_writes_nothing(tmp_path: Path) -> None:
    assert _run(tmp_path, REQBENCH_CODE_CACHE="0")[:7] == BEHAVIOUR
    assert not _table(tmp_path).exists()
