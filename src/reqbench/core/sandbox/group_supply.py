"""Per-command cgroups made ahead of their launch and removed behind it, off the launching thread's path.

Every sandboxed tree still gets a group of its own that no process has ever been in (`cgroups`); what
changes is *when* the harness does the work. Making a group -- mkdir, its limits, sealing its files
(~0.6 ms) -- and removing an emptied one (~0.2 ms) decide nothing about the command, so:

* `take` hands out a group made ahead for the same parent and caps, no older than `FRESH_SECONDS` (far
  inside `cgroups.STALE_SECONDS`, after which another harness's sweep may remove an empty group), and
  asks the background worker for the next one; with none in stock it makes the group now, as before.
* `retire` takes a group whose members are all killed and whose OOM count was read
  (`limits.TreeLimits.end`) and removes it in the background.

The background thread runs a job only while no row thread is working (`core.chores`), so it takes
neither a core nor the interpreter lock from a row's own harness work. At most
`MAX_AHEAD` groups wait per parent and caps. `settle` waits for the pending chores; `drain` also removes
the groups made ahead (at exit; tests settle before they look at a hierarchy). A process killed before
that leaves empty groups, which `cgroups.sweep_stale` removes once they are old. A forked child forgets
what its parent made ahead: two processes are never handed the same group.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
from pathlib import Path

from reqbench.core.chores import Chores
from reqbench.core.sandbox.cgroups import Group, Parent

FRESH_SECONDS = 60.0
"""A group made ahead and not taken within this long is removed instead of handed out."""
MAX_AHEAD = 8
"""The most groups waiting per (parent, caps)."""

Key = tuple[Path, int | None, int | None]
"""(parent group, pids cap, memory cap)."""

_lock = threading.Lock()
_ahead: dict[Key, list[tuple[float, Group]]] = {}
"""Groups made ahead and never handed out, with when each was made (`time.monotonic`), oldest first."""
_chores = Chores("reqbench-cgroups")


def take(parent: Parent, *, pids: int | None, memory: int | None) -> Group | None:
    """A fresh group below `parent` with these caps (one made ahead, else made now); None when the
    kernel refuses one (`Group.make` logs why)."""
    key: Key = (parent.path, pids, memory)
    now = time.monotonic()
    group, expired = None, []
    with _lock:
        stock = _ahead.get(key, [])
        while stock and group is None:
            made, candidate = stock.pop(0)  # the oldest: the expired ones go, the first fresh one is taken
            if now - made <= FRESH_SECONDS:
                group = candidate
            else:
                expired.append(candidate)
    for old in expired:
        _chores.submit(old.remove)
    if group is None:
        group = Group.make(parent, pids=pids, memory=memory)
        if group is None:
            return None
    prepare(parent, pids=pids, memory=memory)
    return group


def prepare(parent: Parent, *, pids: int | None, memory: int | None) -> None:
    """Have one group with these caps made ahead in the background (up to `MAX_AHEAD` wait)."""
    _chores.submit(lambda: _make_ahead(parent, (parent.path, pids, memory)))


def retire(group: Group) -> None:
    """Remove `group` (its members killed, its counters read) in the background."""
    _chores.submit(group.remove)


def settle() -> None:
    """Wait until every job asked for so far is done (without waiting for idleness)."""
    _chores.settle()


def drain() -> None:
    """`settle`, then remove the groups made ahead."""
    settle()
    with _lock:
        stock = [g for items in _ahead.values() for _, g in items]
        _ahead.clear()
    for group in stock:
        group.remove()


def in_stock() -> list[Group]:
    """The groups made ahead and waiting (for tests and diagnostics)."""
    with _lock:
        return [g for items in _ahead.values() for _, g in items]


def _make_ahead(parent: Parent, key: Key) -> None:
    with _lock:
        if len(_ahead.get(key, [])) >= MAX_AHEAD:
            return
    group = Group.make(parent, pids=key[1], memory=key[2])
    if group is None:
        return
    with _lock:
        stock = _ahead.setdefault(key, [])
        if len(stock) < MAX_AHEAD:
            stock.append((time.monotonic(), group))
            return
    group.remove()


def _forget_in_child() -> None:
    """A forked child starts with no stock (and no jobs: `Chores`): the parent owns and removes them."""
    global _lock, _ahead
    _lock, _ahead = threading.Lock(), {}


atexit.register(drain)
os.register_at_fork(after_in_child=_forget_in_child)
