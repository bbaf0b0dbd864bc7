"""`core.chores.Chores`: background jobs in order, only while no row thread works, bounded, fork-safe."""

from __future__ import annotations

import os
import select
import signal
import threading
import time

from reqbench.core import idle
from reqbench.core.chores import Chores


def test_jobs_run_in_order_and_settle_waits_for_them() -> None:
    chores, done = Chores("test-order"), []
    for n in range(5):
        assert chores.submit(lambda n=n: done.append(n))
    chores.settle()
    assert done == [0, 1, 2, 3, 4]


def test_a_job_waits_while_a_row_thread_works_and_settle_runs_it_anyway() -> None:
    chores, ran = Chores("test-idle"), threading.Event()
    with idle.working():
        chores.submit(ran.set)
        assert not ran.wait(0.3)  # a row is working: the chore keeps off its path
        chores.settle()  # asked for: it runs without waiting for idleness
        assert ran.is_set()
    chores.submit(ran.clear)
    chores.settle()
    assert not ran.is_set()


def test_a_full_queue_refuses_and_a_failing_job_stops_nothing() -> None:
    chores, done = Chores("test-full", maxsize=2), []
    with idle.working():  # nothing runs meanwhile: one job held by the thread, two queued
        accepted = [chores.submit(lambda n=n: done.append(n)) for n in range(4)]
        assert accepted[:2] == [True, True] and accepted[3] is False
        chores.settle()
    assert done == [n for n, ok in enumerate(accepted) if ok]
    chores.submit(lambda: [][0])
    chores.submit(lambda: done.append("after"))
    chores.settle()
    assert done[-1] == "after"


def test_a_forked_child_has_no_jobs_of_its_parent() -> None:
    chores, gate = Chores("test-fork"), threading.Event()
    with idle.working():  # the parent's jobs wait: the child is forked with them pending
        chores.submit(lambda: gate.wait(5))
        chores.submit(lambda: None)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                t0 = time.monotonic()
                chores.settle()  # the parent's two jobs are not the child's: nothing to wait for
                ok = time.monotonic() - t0 < 1.0
                os.write(write, b"1" if ok else b"0")
            finally:
                os._exit(0)
        os.close(write)
        ready, _, _ = select.select([read], [], [], 10)
        if not ready:  # the child waits for its parent's jobs: it inherited them
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(read, "rb") as pipe:
            assert ready and pipe.read() == b"1"
        gate.set()
        chores.settle()
