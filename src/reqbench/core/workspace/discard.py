"""`discard`: remove a finished tree off the caller's critical path, inside a run.

A row ends by removing its scratch: the agent's workspace, the verification tree, the check's scratch
folder and the row's own folder -- dozens of unlink and rmdir calls that decide nothing (every result
is already read). Inside `trash_in(folder)` (the runner wraps a run in it, with a private folder of
the run's scratch), `discard` moves a tree on that folder's file system into it (one rename: the tree
is gone from its old place at once, so its parent can be removed or reused) and one background thread
removes it with `fileio.remove_tree`. The removals run only while no row thread is working
(`core.idle`): while rows wait for their agents' and checks' processes, never beside a row's own
harness work, whose every system call would otherwise wait for the interpreter lock.

Everywhere else -- no run, another file system, a tree that cannot be moved (a mount point) -- the tree
is removed inline, as before. At most `MAX_PENDING` trees wait (beyond that the caller removes inline);
`trash_in` waits for every queued removal when it ends, so a run leaves nothing behind, and a process
killed before that leaves the trash folder among the run's scratch, which a resumed run removes.

Only for trees no process of an agent or check can still use: the sandbox that wrote them has ended.
"""

from __future__ import annotations

import atexit
import os
import queue
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from reqbench.core import idle
from reqbench.core.workspace.fileio import remove_tree

MAX_PENDING = 64
IDLE_POLL_SECONDS = 0.05
"""How often a waiting removal looks whether `drain` asked for it."""

_queue: queue.Queue[str] = queue.Queue(maxsize=MAX_PENDING)
_start_lock = threading.Lock()
_trash_lock = threading.Lock()
_trash: dict[int, list[str]] = {}
"""Device number -> trash folders registered by `trash_in` on that file system (the innermost last)."""
_draining = threading.Event()
_worker: threading.Thread | None = None


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
    _ensure_worker()
    try:
        _queue.put_nowait(hidden)
    except queue.Full:
        remove_tree(hidden)


def drain() -> None:
    """Wait until every tree handed to `discard` so far is removed (the worker then removes without
    waiting for idleness, so a working thread may call this too)."""
    if _worker is not None:
        _draining.set()
        try:
            _ensure_worker()
            _queue.join()
        finally:
            _draining.clear()


def _ensure_worker() -> None:
    global _worker
    if _worker is not None and _worker.is_alive():
        return
    with _start_lock:
        if _worker is None or not _worker.is_alive():
            _worker = threading.Thread(target=_run, name="reqbench-discard", daemon=True)
            _worker.start()


def _run() -> None:
    while True:
        path = _queue.get()
        try:
            while not _draining.is_set() and not idle.idle(timeout=IDLE_POLL_SECONDS):
                pass
            remove_tree(path)
        finally:
            _queue.task_done()


def _forget_in_child() -> None:
    """A forked child starts with an empty queue and no trash folder: its parent removes what it queued."""
    global _queue, _worker, _start_lock, _draining, _trash_lock, _trash
    _queue, _worker = queue.Queue(maxsize=MAX_PENDING), None
    _start_lock, _draining, _trash_lock, _trash = threading.Lock(), threading.Event(), threading.Lock(), {}


atexit.register(drain)
os.register_at_fork(after_in_child=_forget_in_child)
