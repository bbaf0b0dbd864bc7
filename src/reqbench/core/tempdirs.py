"""Temporary folders that name the process owning them (`make`, `folder`, `keyed`), and `sweep`.

Every temporary folder reqbench makes -- the process's git skeleton and check guard, a check's scratch
tree, the model gateway's socket folder, an agent's state folder (a preset's session included), a run's
memory-backed scratch, the unsafe modes' HOME, the protocols' working copies, an output built beside its
final place (a run directory, a built or imported suite, a cache entry) -- is made here, and its name
says who owns it::

    reqbench-<kind>-<pid>.<start>.<pidns>-<suffix>     (with a leading dot: an output being built)

`start` is the owner's start time (field 22 of ``/proc/<pid>/stat``, clock ticks since boot) and `pidns`
the inode of its PID namespace, so a recycled pid is never taken for the owner, and a folder made in
another PID namespace (a container sharing ``/dev/shm``) is never judged from this one. The suffix is
random (`make`) or a caller's key (`keyed`: a run's scratch, named after its run directory).

The name is the whole record, chosen by the harness in a folder no sandbox sees: every sandbox has a
private ``/tmp`` and ``/dev/shm``, and only a step's own workspace, state folder or check tree is bound
into it, at its own path (a mount point, which it can neither rename nor replace). So an agent cannot
forge an owner, and what it writes inside a folder says nothing about who owns it.

`sweep(parent)` removes every such entry of `parent` that belongs to this user and whose owner is gone
(no process with that pid, or one that started at another time): never a live owner's, never this
process's, never one from another PID namespace. Removal is `fileio.remove_tree`: iterative, never
through a link (a link named like ours is itself removed), opening folders an agent closed. Each process
sweeps a folder once (`sweep_once`) before it first makes one of ours there, and a run sweeps the
temporary folder and the scratch base when it starts (`sweep_places`), so whatever a killed process left
goes with the next reqbench command that works there.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PREFIX = "reqbench-"
_NAME = re.compile(r"\.?reqbench-(?P<kind>[a-z0-9-]+?)-(?P<pid>[0-9]+)\.(?P<start>[0-9]+)\.(?P<ns>[0-9]+)"
                   r"-(?P<suffix>[A-Za-z0-9_]+)")
_KIND = re.compile(r"[a-z][a-z0-9-]*")
_KEY = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Owner:
    """A process as a temporary folder's name records it."""

    pid: int
    start: int
    """Clock ticks since boot when it started (``/proc/<pid>/stat`` field 22)."""
    pidns: int
    """Inode of its PID namespace (``/proc/<pid>/ns/pid``)."""

    @property
    def stamp(self) -> str:
        return f"{self.pid}.{self.start}.{self.pidns}"


def start_ticks(pid: int | str) -> int | None:
    """When process `pid` started (clock ticks since boot), None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            text = fh.read()
    except OSError:
        return None
    fields = text[text.rfind(b")") + 2:].split()  # the command name may hold spaces and parentheses
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def _pidns() -> int:
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


_own: dict[int, Owner] = {}


def this_process() -> Owner:
    """This process as an owner (looked up once per process: a forked child is an owner of its own)."""
    pid = os.getpid()
    if pid not in _own:
        _own[pid] = Owner(pid, start_ticks("self") or 0, _pidns())
    return _own[pid]


def owner_of(name: str) -> Owner | None:
    """The owner a folder `name` records, None when it is not named like ours."""
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    return Owner(int(match["pid"]), int(match["start"]), int(match["ns"]))


def gone(owner: Owner) -> bool:
    """Whether `owner` has certainly ended: same PID namespace as this process, and no process with its
    pid or one that started at another time. Anything that cannot be judged (no ``/proc``, another
    namespace) counts as alive."""
    me = this_process()
    if owner.pidns != me.pidns or me.start == 0:
        return False
    return start_ticks(owner.pid) != owner.start


def _parent(parent: Path | str | None) -> str:
    return os.path.abspath(tempfile.gettempdir() if parent is None else os.fspath(parent))


def _checked(kind: str) -> str:
    if not _KIND.fullmatch(kind):
        raise ValueError(f"temporary folder kind {kind!r} is not lower-case letters, digits and hyphens")
    return kind


def make(kind: str, parent: Path | str | None = None, *, keep: bool = False, hidden: bool = False) -> Path:
    """A new private (0700) folder ``reqbench-<kind>-<owner>-<random>`` in `parent` (default: the
    system's temporary folder), after sweeping `parent` once in this process. One the user asked to
    `keep` (for debugging) is named ``reqbench-<kind>-kept-<random>`` instead: no sweep ever removes it.
    A `hidden` one (an output built beside its final place, then renamed into it) starts with a dot, so
    whoever lists that folder meanwhile skips it."""
    where = _parent(parent)
    sweep_once(where)
    owner = "kept" if keep else this_process().stamp
    dot = "." if hidden else ""
    return Path(tempfile.mkdtemp(prefix=f"{dot}{PREFIX}{_checked(kind)}-{owner}-", dir=where))


def keyed(kind: str, key: str, parent: Path | str | None = None) -> Path:
    """The path ``<parent>/reqbench-<kind>-<owner>-<key>`` (not created: the same path for the same key
    within this process), after sweeping `parent` once in this process."""
    if not _KEY.fullmatch(key):
        raise ValueError(f"temporary folder key {key!r} is not letters, digits and underscores")
    where = _parent(parent)
    sweep_once(where)
    return Path(where) / f"{PREFIX}{_checked(kind)}-{this_process().stamp}-{key}"


@contextlib.contextmanager
def folder(kind: str, parent: Path | str | None = None, *, hidden: bool = False) -> Iterator[Path]:
    """`make` for the block, removed link-safely at its end (what cannot be removed is left)."""
    from reqbench.core.workspace.fileio import remove_tree  # the workspace package imports this module

    path = make(kind, parent, hidden=hidden)
    try:
        yield path
    finally:
        remove_tree(path)


def sweep(parent: Path | str | None = None) -> list[str]:
    """Remove the entries of `parent` named like ours, of this user, whose owner is `gone`; returns their
    names (see the module docstring)."""
    from reqbench.core.workspace.fileio import remove_tree

    removed: list[str] = []
    try:
        entries = list(os.scandir(_parent(parent)))
    except OSError:
        return removed
    for entry in entries:
        owner = owner_of(entry.name) if entry.name.lstrip(".").startswith(PREFIX) else None
        try:
            if owner is None or entry.stat(follow_symlinks=False).st_uid != os.geteuid() or not gone(owner):
                continue
        except OSError:
            continue
        remove_tree(entry.path)
        removed.append(entry.name)
    return removed


_lock = threading.Lock()
_swept: set[tuple[int, str]] = set()


def sweep_once(parent: Path | str | None = None) -> None:
    """`sweep` `parent` unless this process already did."""
    key = (os.getpid(), _parent(parent))
    with _lock:
        if key in _swept:
            return
        _swept.add(key)
        sweep(key[1])


def sweep_places(*others: Path | str | None) -> None:
    """`sweep_once` the system's temporary folder and each of `others` given (None: skipped)."""
    for place in (None, *(p for p in others if p is not None)):
        sweep_once(place)
