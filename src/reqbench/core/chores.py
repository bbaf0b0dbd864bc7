"""`Chores`: one background thread running jobs that decide nothing, each only while the rows wait.

Removing a finished tree (`workspace.discard`) or making and removing a sandbox's cgroups
(`sandbox.group_supply`) is work no result depends on. A `Chores` runs such jobs in order in a daemon
thread, each only once no row thread is working (`core.idle`): while rows wait for their agents' and
checks' processes, never beside a row's own harness work, whose every system call would otherwise wait
for the interpreter lock. `settle` waits for every job submitted so far, running the rest without
waiting for idleness (so a working thread may call it too). A forked child starts with no jobs and no
thread: what its parent submitted is its parent's.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
from collections.abc import Callable

from reqbench.core import idle

log = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 0.05
"""How often a waiting job looks whether `settle` asked for it."""


class Chores:
    """A queue of background jobs and the thread that runs them while the rows wait (module docstring)."""

    def __init__(self, name: str, maxsize: int = 0) -> None:
        self.name, self.maxsize = name, maxsize
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def submit(self, job: Callable[[], None]) -> bool:
        """Queue `job`; False (nothing queued) when `maxsize` jobs already wait: the caller does it now."""
        self._ensure_worker()
        try:
            self._jobs.put_nowait(job)
        except queue.Full:
            return False
        return True

    def settle(self) -> None:
        """Wait until every job submitted so far has run."""
        if self._worker is None:
            return
        self._settling.set()
        try:
            self._ensure_worker()
            self._jobs.join()
        finally:
            self._settling.clear()

    def _reset(self) -> None:
        self._jobs: queue.Queue[Callable[[], None]] = queue.Queue(maxsize=self.maxsize)
        self._settling = threading.Event()
        self._start_lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def _ensure_worker(self) -> None:
        with self._start_lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._worker.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            try:
                while not self._settling.is_set() and not idle.idle(timeout=IDLE_POLL_SECONDS):
                    pass
                job()
            except Exception as exc:  # noqa: BLE001 - one failed chore must not stop the ones after it
                log.warning("%s: a background job failed: %s", self.name, exc)
            finally:
                self._jobs.task_done()
