"""Diff sections git has already written in this process, by what they depend on: never diff a pair twice.

A file's section of ``git diff-tree -p`` (as `objects.ObjectStore` runs it) depends only on its path, the
modes and the contents of both sides, so the section git wrote once is the section it would write again.
`textdiff.text_patch` asks here before it computes a section itself, and the git path files every plain
text section it produced (`textdiff.remember`), so a change git had to diff once (an edit whose lines
git places by its own heuristics) costs no git process the next time: a reference patch applied and
diffed row after row, its calibration, a replay.

Keys hold the sha256 of both contents (not only git's SHA-1), so no crafted SHA-1 collision can make one
row's content stand for another's. The memo lives in this process's memory only (no agent can read or
seed it: entries come only from git's own output) and is bounded to `BUDGET` bytes, least recently used
first out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

Key = tuple[str, str, str, str, str]
"""(path, old mode, old sha256, new mode, new sha256); an absent side has empty mode and digest."""

BUDGET = 8 << 20
_memo: OrderedDict[Key, bytes] = OrderedDict()
_size = 0
_lock = threading.Lock()


def recall(key: Key) -> bytes | None:
    """git's section for `key`, when this process has seen it."""
    with _lock:
        section = _memo.get(key)
        if section is not None:
            _memo.move_to_end(key)
        return section


def store(key: Key, section: bytes) -> None:
    """File git's `section` for `key` (sections larger than a quarter of the budget are not kept)."""
    global _size
    if len(section) > BUDGET // 4:
        return
    with _lock:
        old = _memo.pop(key, None)
        _size -= len(old) if old is not None else 0
        _memo[key] = section
        _size += len(section)
        while _size > BUDGET:
            _, dropped = _memo.popitem(last=False)
            _size -= len(dropped)


def clear() -> None:
    """Forget everything (tests and benchmarks that must measure the computation itself)."""
    global _size
    with _lock:
        _memo.clear()
        _size = 0
