"""Seeded schedule: rows grouped by repeat, shuffled within each repeat, a barrier between repeats.

SpecPath: "Rows are randomized within repeat using seed 20260729, with a barrier between repeats." The
order inside a repeat must not correlate with task or condition (provider load, time of day), and repeat
r+1 never starts before every row of repeat r finished, so repeats are comparable snapshots.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Protocol, TypeVar


class Scheduled(Protocol):
    """What the schedule reads of an item: a `Row`, or a study's (configuration, row) pair."""

    @property
    def key(self) -> str: ...

    @property
    def repeat(self) -> int: ...


S = TypeVar("S", bound=Scheduled)


def schedule(rows: Iterable[S], seed: int) -> list[list[S]]:
    """Batches of rows, one per repeat in ascending repeat order; run batch i+1 only after batch i.

    Within a repeat, rows are first put in canonical order (sorted by `Row.key`, so the input order does
    not matter) and then shuffled by ``random.Random(f"{seed}:{repeat}").shuffle``. The same rows and
    seed always give the same schedule, on every platform and Python >= 3.11; a resumed run filters
    this same schedule, so the remaining rows keep their original relative order. Items are hashable and
    their keys unique (a study prefixes each row's key with its configuration's name).
    """
    by_repeat: dict[int, list[S]] = {}
    for row in rows:
        by_repeat.setdefault(row.repeat, []).append(row)
    batches = []
    for repeat in sorted(by_repeat):
        batch = sorted(set(by_repeat[repeat]), key=lambda r: r.key)
        random.Random(f"{seed}:{repeat}").shuffle(batch)
        batches.append(batch)
    return batches
