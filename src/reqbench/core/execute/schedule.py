"""Seeded schedule: rows in repeat order, shuffled within each repeat; a barrier between repeats only where
the protocol's rule asks for one.

Every protocol's rows are put in canonical order and shuffled within a repeat by the run seed, so the order
inside a repeat does not correlate with task or condition (provider load, time of day), and repeat r's rows
start before repeat r+1's. A *barrier* -- repeat r+1 never starts before every row of repeat r finished --
is a protocol's rule, not core's: SpecPath's ("Rows are randomized within repeat using seed 20260729, with a
barrier between repeats", §4.3) keeps repeats comparable snapshots; a protocol asks for it through its
optional ``repeat_barrier(options) -> RepeatBarrier | None`` hook (`repeat_barrier`). Without one, the rows
of every repeat form one batch and run as slots free up, so ``--concurrency`` is filled across repeats.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from reqbench.core.execute.suite import SuiteProtocol
    from reqbench.core.execute.types import RunOptions


class Scheduled(Protocol):
    """What the schedule reads of an item: a `Row`, or a study's (configuration, row) pair."""

    @property
    def key(self) -> str: ...

    @property
    def repeat(self) -> int: ...


S = TypeVar("S", bound=Scheduled)


@dataclass(frozen=True)
class RepeatBarrier:
    """A protocol's rule that a repeat starts only after every row of the one before finished."""

    rule: str
    """Whose rule it is (e.g. ``SpecPath §4.3``)."""
    lift: str
    """The option that lifts it (e.g. ``--agent-opt specpath.barrier_between_repeats=false``)."""


def repeat_barrier(protocol: SuiteProtocol, options: RunOptions) -> RepeatBarrier | None:
    """The barrier `protocol`'s rule puts between repeats under `options`, or None (its ``repeat_barrier``
    hook; by default no barrier)."""
    return protocol.repeat_barrier(options)


def schedule_facts(protocol: SuiteProtocol, options: RunOptions) -> dict[str, Any]:
    """What a run's provenance records of its schedule: whether a barrier separates repeats, and whose rule."""
    barrier = repeat_barrier(protocol, options)
    return {"barrier_between_repeats": barrier is not None, "rule": barrier.rule if barrier else ""}


def schedule(rows: Iterable[S], seed: int, *, barrier: bool) -> list[list[S]]:
    """Batches of rows to run one after the other: one per repeat, in ascending repeat order, with a
    `barrier`; else one batch holding every repeat's rows in that same order.

    Within a repeat, rows are first put in canonical order (sorted by `Row.key`, so the input order does
    not matter) and then shuffled by ``random.Random(f"{seed}:{repeat}").shuffle``. The same rows and
    seed always give the same order, on every platform and Python >= 3.11; a resumed run filters
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
    return batches if barrier else [[row for batch in batches for row in batch]] if batches else []


def barrier_note(barrier: RepeatBarrier | None, batches: list[list[Any]], concurrency: int) -> str | None:
    """What a run says once when its barrier keeps fewer rows in flight than ``--concurrency`` allows."""
    if barrier is None or len(batches) < 2:
        return None
    smallest = min(len(batch) for batch in batches)
    if smallest >= concurrency:
        return None
    return (f"note: a barrier between repeats ({barrier.rule}) lets at most {smallest} row(s) of one repeat run "
            f"at once, below --concurrency {concurrency}; {barrier.lift} lifts it")
