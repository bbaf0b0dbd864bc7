"""`Pump`: wait for a started process while draining its pipes, all in the calling thread.

One poll loop reads the process's stdout and stderr, and any harness channel it writes (a check's
evidence pipe), as data arrives -- so a chatty process never blocks on a full pipe -- and watches the
process itself through a pidfd, so it returns the moment the process ends or at its deadline. A reader
thread per pipe did the same, but starting and joining three threads cost about as much as everything
else the harness does around a short check (``benchmarks/bench_scale.py``).

Each `Stream` keeps at most its cap (to a file or a buffer) and notes what it discarded. After the
process tree is gone, `Pump.finish` reads what is still buffered until every pipe reaches end of file,
or marks the ones a surviving descendant still holds open as `Stream.incomplete` at the grace deadline.
"""

from __future__ import annotations

import os
import select
import subprocess
import time
from dataclasses import dataclass, field
from typing import IO

from reqbench.core import idle

CHUNK = 65536
POLL_FALLBACK_SECONDS = 0.02
"""How often the process is polled where the kernel offers no pidfd (Linux < 5.3)."""
_EVENTS = select.POLLIN | select.POLLHUP | select.POLLERR


@dataclass
class Stream:
    """One pipe the harness reads: kept up to `cap` bytes (in `sink` when given, else in `data`)."""

    fd: int
    cap: int
    sink: IO[bytes] | None = None
    data: bytearray = field(default_factory=bytearray)
    kept: int = 0
    truncated: bool = False
    """More than `cap` bytes arrived: the rest was discarded."""
    incomplete: bool = False
    """The pipe was still open when reading stopped (a descendant held it past the grace period)."""
    open: bool = True

    def read(self) -> None:
        """Take what the pipe holds now (called when poll reports it ready: never blocks)."""
        try:
            chunk = os.read(self.fd, CHUNK)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.open = False
            return
        room = self.cap - self.kept
        if len(chunk) > room:
            self.truncated = True
            chunk = chunk[:max(room, 0)]
        if chunk:
            self.kept += len(chunk)
            if self.sink is not None:
                self.sink.write(chunk)
            else:
                self.data += chunk


class Pump:
    """Drains `streams` of `proc` in the calling thread (`wait`, then `finish`)."""

    def __init__(self, proc: subprocess.Popen[bytes], streams: list[Stream]) -> None:
        self.proc, self.streams = proc, streams
        self._by_fd = {s.fd: s for s in streams}
        self._poller = select.poll()
        for s in streams:
            self._poller.register(s.fd, _EVENTS)

    def wait(self, timeout: float | None) -> int:
        """Drain until the process ends and return its exit status; `subprocess.TimeoutExpired` at the
        timeout (the process is left running for the caller to kill)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            pidfd: int | None = os.pidfd_open(self.proc.pid)
        except (AttributeError, OSError):  # no pidfds here, or the process is already reaped
            pidfd = None
        if pidfd is not None:
            self._poller.register(pidfd, select.POLLIN)
        try:
            with idle.waiting():
                self._wait_loop(pidfd, deadline, timeout)
        finally:
            if pidfd is not None:
                self._poller.unregister(pidfd)
                os.close(pidfd)
        return self.proc.wait()

    def _wait_loop(self, pidfd: int | None, deadline: float | None, timeout: float | None) -> None:
        while True:
            if pidfd is None and self.proc.poll() is not None:
                return
            ready = self._poller.poll(self._wait_ms(deadline, fallback=pidfd is None))
            if any(fd == pidfd for fd, _ in ready):
                return
            self._read(ready)
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired(self.proc.args, timeout or 0)

    def finish(self, grace: float) -> None:
        """Read every stream to end of file (the tree is gone: nothing more is written), for at most
        `grace` seconds; streams still open then are `incomplete`."""
        deadline = time.monotonic() + grace
        while any(s.open for s in self.streams):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self._read(self._poller.poll(max(1, int(left * 1000))))
        for s in self.streams:
            if s.open:
                s.incomplete = True
                self._poller.unregister(s.fd)

    def _read(self, ready: list[tuple[int, int]]) -> None:
        for fd, _ in ready:
            stream = self._by_fd.get(fd)
            if stream is None or not stream.open:
                continue
            stream.read()
            if not stream.open:
                self._poller.unregister(fd)

    @staticmethod
    def _wait_ms(deadline: float | None, *, fallback: bool) -> int | None:
        """The poll timeout in ms: up to the deadline (+1 ms so it is passed on return), capped at the
        fallback polling interval where no pidfd tells when the process ends."""
        limits = []
        if deadline is not None:
            limits.append(max(0, int((deadline - time.monotonic()) * 1000) + 1))
        if fallback:
            limits.append(int(POLL_FALLBACK_SECONDS * 1000))
        return min(min(limits), 2**31 - 1) if limits else None
