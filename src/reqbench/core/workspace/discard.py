"""`discard`: remove a finished tree off the caller's critical path, inside a run.

A row ends by removing its scratch: the agent's workspace, the verification tree, the check's scratch
folder and the row's own folder -- dozens of unlink and rmdir calls that decide nothing (every result
is already read). Inside `trash_in(folder)` (the runner wraps a run in it, with a private folder of
the run's scratch), `discard` moves a tree on that folder's file system into it (one rename: the tree
is gone from its old place at once, so its parent can be removed or reused) and a background thread
removes it with `fileio.remove_tree`, only while no row thread is working (`core.chores`).

Everywhere else -- no run, another file system, a tree that cannot be moved (a mount point) -- the tree
is removed inline, as before. At most `MAX_PENDING` trees wait (beyond that the caller removes inline);
`trash_in` waits for every queued removal when it ends, so a run leaves nothing behind, and a process
killed before that leaves the trash folder among the run's scratch, which a resumed run removes.

Only for trees no process of an agent or check can still use: the sandbox that wrote them has ended.
"""

from __future__ import annotations

import atexit
import os
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reqbench.core.chores import Chores
from reqbench.core.workspace.fileio import remove_tree

MAX_PENDING = 64

_removals = Chores("reqbench-discard", MAX_PENDING)
_trash_lock = threading.Lock()
_trash: dict[int, list[str]] = {}
"""Device number -> trash folders registered by `trash_in` on that file system (the innermost last)."""


@contextmanager
def trash_in(folder: Path) -> Iterator[Path]:
    """Within the block, `discard` moves trees on `folder`'s file system into `folder` (made private if
    missing) for background removal; at the end every queued removal is waited for and `folder` removed."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    top = os.fspath(folder)
    dev = os.stat(top).st_dev
    with _trash_lock:
        _trash.setdefault(dev, []).append(top)
    try:
        yield Path(top)
    finally:
        with _trash_lock:
            _trash[dev].remove(top)
            if not _trash[dev]:
                del _trash[dev]
        drain()
        remove_tree(top)


def current_trash() -> Path | None:
    """The trash folder of the innermost `trash_in` block open in this process (None outside a run): a
    private folder of the run's scratch, removed when the block ends and when a killed run resumes."""
    with _trash_lock:
        folders = [f for stack in _trash.values() for f in stack]
    return Path(folders[-1]) if folders else None


def discard(path: Path | str) -> None:
    """Remove the file or tree `path`: in the background inside `trash_in`, else now (module docstring);
    a missing path is fine."""
    top = os.fspath(path)
    try:
        dev = os.lstat(top).st_dev
    except FileNotFoundError:
        return
    with _trash_lock:
        folders = _trash.get(dev)
        trash = folders[-1] if folders else None
    if trash is None:
        remove_tree(top)
        return
    hidden = os.path.join(trash, uuid.uuid4().hex)
    try:
        os.rename(top, hidden)
    except OSError:  # a mount point, a parent without write permission
        remove_tree(top)
        return
    if not _removals.submit(lambda: remove_tree(hidden)):
        remove_tree(hidden)


def drain() -> None:
    """Wait until every tree handed to `discard` so far is removed (the worker then removes without
    waiting for idleness, so a working thread may call this too)."""
    _removals.settle()


def _forget_in_child() -> None:
    """A forked child starts with no trash folder (its queue is empty too: `Chores`); its parent removes
    what it queued."""
    global _trash_lock, _trash
    _trash_lock, _trash = threading.Lock(), {}


atexit.register(drain)
os.register_at_fork(after_in_child=_forget_in_child)
