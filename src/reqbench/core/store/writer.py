"""Group commit for a run store: the writes of calls arriving together go into one SQLite transaction.

Each recorded model call used to be its own transaction on its own connection: with ``synchronous=FULL``
that is one ``fsync`` per call, and concurrent calls queued on SQLite's write lock, whose busy handler
sleeps (1, 2, 5, ... 100 ms) -- 50 rows calling at once saw the gateway's p99 go from 99 ms to 1,015 ms.

Here one `GroupWriter` per database file and process owns one connection and one thread. `submit` queues a
write (a function of the connection) and returns at once; the thread takes whatever is queued -- up to
`MAX_BATCH` writes, never waiting for more than is there, so a lone call is written at once and calls that
arrive while a commit runs share the next one -- and runs them in one ``BEGIN IMMEDIATE`` ... ``COMMIT``.
If one write of a group fails, the group is rolled back and each write retried in a transaction of its
own, so a bad write loses only itself. `run` queues a write and waits until it is committed (the record/replay
cache's puts, which later reads must see): concurrent ones share a commit instead of queueing on the
store's lock for one each.

Durability rule: a queued write is not yet on disk. `flush` returns once everything submitted before it
is committed (``synchronous=FULL``: on disk). The run store flushes before it records an attempt
(`RunStore.record_attempt`, which raises the first write that failed: a disk that filled up ends the run
there, with every recorded attempt intact), before the calls are read back or a row's store bound is
checked at its margin, and when it closes; the gateway flushes when it stops; and every writer is flushed
when the process exits normally. So a row is only reported done once its calls are durable, and a crash --
even SIGKILL -- loses at most calls of rows that were still running, which are run again on ``--resume``.

At most `MAX_PENDING` writes of together `MAX_PENDING_BYTES` wait at once: past that `submit` blocks until
the thread catches up, so a flood of calls holds bounded memory and delays a flush by a bounded backlog. The
thread ends after `IDLE_SECONDS` without work (its connection closed) and starts again with the next write;
a forked child starts its own.
"""

from __future__ import annotations

import atexit
import os
import queue
import sqlite3
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

MAX_BATCH = 512
"""Most writes one transaction holds."""
MAX_PENDING = 1024
"""Most writes queued at once (`submit` blocks past it)."""
MAX_PENDING_BYTES = 64 * 1024**2
"""Most bytes (as the submitters size their writes) queued at once; a single write may be larger."""
IDLE_SECONDS = 2.0
"""The thread ends after this long without a write."""

Write = Callable[[sqlite3.Connection], Any]
Then = Callable[[Any, BaseException | None], None]


class _Item:
    __slots__ = ("done", "error", "release", "result", "size", "then", "waited", "write")

    def __init__(self, write: Write | None, then: Then | None, release: bool = False, size: int = 0,
                 waited: bool = False) -> None:
        self.write, self.then, self.release, self.size, self.waited = write, then, release, size, waited
        self.result: Any = None
        self.done = threading.Event()
        self.error: BaseException | None = None


class GroupWriter:
    """The write thread of one database file (see the module docstring)."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = Path(db_path)
        self._queue: queue.Queue[_Item] = queue.Queue()
        self._lock = threading.Lock()
        self._room = threading.Condition()
        self._pending = [0, 0]
        """Writes queued and their bytes (`MAX_PENDING`, `MAX_PENDING_BYTES`)."""
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None
        self.commits = 0
        """Transactions committed so far (each holds one group)."""

    def submit(self, write: Write, then: Then | None = None, size: int = 0) -> None:
        """Queue `write` (run inside a transaction on the writer's connection; `size`: about what it holds in
        memory until then); ``then(result, error)`` is called on the writer's thread once it is committed, or
        failed. Blocks while the queue is full."""
        self._enqueue(_Item(write, then, size=size))

    def run(self, write: Write) -> Any:
        """Run `write` in the next group and return its result once it is committed (its error raised here,
        not kept for `flush`): a write its caller must see done, sharing a transaction with those queued."""
        item = _Item(write, None, waited=True)
        self._enqueue(item)
        item.done.wait()
        if item.error is not None:
            raise item.error
        return item.result

    def _enqueue(self, item: _Item) -> None:
        size = item.size
        with self._room:
            while self._pending[0] and (self._pending[0] >= MAX_PENDING
                                        or self._pending[1] + size > MAX_PENDING_BYTES):
                self._room.wait()
            self._pending[0] += 1
            self._pending[1] += size
        self._put(item)

    def flush(self, release: bool = False, check: bool = True) -> None:
        """Wait until every write submitted before is committed; with `check`, raise the first failure since
        the last such flush (a write that failed is not in the store). `release`: close the writer's
        connection too (the store is being closed: the last connection to go checkpoints the WAL into the
        database file)."""
        with self._lock:
            idle = self._thread is None or not self._thread.is_alive()
        if not (idle and self._queue.empty()):  # an ended thread left nothing queued and its connection closed
            marker = _Item(None, None, release)
            self._put(marker)
            marker.done.wait()
        if not check:
            return
        with self._lock:
            failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def _put(self, item: _Item) -> None:
        self._queue.put(item)
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="reqbench-store-writer", daemon=True)
                self._thread.start()

    # -- the writer thread -------------------------------------------------------------------------------
    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        identity: tuple[int, int] | None = None
        try:
            while True:
                try:
                    first = self._queue.get(timeout=IDLE_SECONDS)
                except queue.Empty:
                    with self._lock:  # no write was queued since: end (a later `_put` starts a new thread)
                        if self._queue.empty():
                            self._thread = None
                            return
                    continue
                group = [first]
                while len(group) < MAX_BATCH:
                    try:
                        group.append(self._queue.get_nowait())
                    except queue.Empty:
                        break
                if conn is not None and _identity(self.db_path) != identity:  # removed and made again
                    conn.close()
                    conn = None
                if conn is None and any(item.write is not None for item in group):
                    conn, identity = _connect(self.db_path), _identity(self.db_path)
                self._commit(conn, group)
                if conn is not None and any(item.release for item in group):
                    conn.close()
                    conn = None
        finally:
            if conn is not None:
                conn.close()

    def _commit(self, conn: sqlite3.Connection | None, group: list[_Item]) -> None:
        writes = [item for item in group if item.write is not None]
        results: dict[int, Any] = {}
        if writes and conn is not None:
            try:
                results = self._transaction(conn, writes)
            except BaseException:  # noqa: BLE001 - one bad write: each again alone, so it loses only itself
                for item in writes:
                    try:
                        results.update(self._transaction(conn, [item]))
                    except BaseException as exc:  # noqa: BLE001 - kept for `flush`, never lost silently
                        item.error = exc
                        if not item.waited:  # a waited write's caller has it raised
                            with self._lock:
                                self._failure = self._failure or exc
        with self._room:
            self._pending[0] -= len(writes)
            self._pending[1] -= sum(item.size for item in writes)
            self._room.notify_all()
        for item in group:
            item.result = results.get(id(item))
            if item.then is not None:
                try:
                    item.then(item.result, item.error)
                except Exception:  # noqa: BLE001 - a callback never stops the writer
                    pass
            item.done.set()

    def _transaction(self, conn: sqlite3.Connection, items: list[_Item]) -> dict[int, Any]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            results = {id(item): item.write(conn) for item in items if item.write is not None}
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self.commits += 1
        return results


def _identity(db_path: Path) -> tuple[int, int] | None:
    """Device and inode of the database file (None when it is gone): a run directory removed and created
    again at the same path is a new file, which the writer opens anew."""
    try:
        st = os.stat(db_path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _connect(db_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA synchronous=FULL")  # a committed group is on disk (the store is in WAL mode)
    conn.row_factory = sqlite3.Row
    return conn


_WRITERS: dict[tuple[int, str], GroupWriter] = {}
_WRITERS_LOCK = threading.Lock()


@lru_cache(maxsize=256)
def database_key(db_path: str) -> str:
    """The resolved path of a database file: one writer (and one bound per row) however it is named. Kept,
    since every recorded call asks (a run directory is not moved while it runs)."""
    return str(Path(db_path).resolve())


def writer_for(db_path: Path | str) -> GroupWriter:
    """The writer of `db_path` in this process (one per file and process)."""
    key = (os.getpid(), database_key(str(db_path)))
    with _WRITERS_LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            writer = _WRITERS[key] = GroupWriter(Path(db_path))
        return writer


def flush_writes(db_path: Path | str, release: bool = False, check: bool = True) -> None:
    """Make every write this process queued for `db_path` durable (nothing to do when none was); `check`:
    raise the first write that failed since; `release`: close the writer's connection too
    (`GroupWriter.flush`)."""
    key = (os.getpid(), database_key(str(db_path)))
    with _WRITERS_LOCK:
        writer = _WRITERS.get(key)
    if writer is not None:
        writer.flush(release, check)


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's writer threads: it starts its own (keyed by its pid), and the
    registry's lock may have been held by another thread at the fork."""
    global _WRITERS_LOCK
    _WRITERS_LOCK = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)


@atexit.register
def _flush_all() -> None:
    """At a normal exit, write what is still queued (failures are reported where they are flushed)."""
    with _WRITERS_LOCK:
        writers = [w for (pid, _), w in _WRITERS.items() if pid == os.getpid()]
    for writer in writers:
        try:
            writer.flush(release=True, check=False)
        except Exception:  # noqa: BLE001 - the process is ending: nothing more to say about it
            pass
