"""`pump.Pump` (draining a process's pipes and waiting on a pidfd in the calling thread, no reader
threads and no sleeps) and `view._under` (string prefix instead of ``Path.parents``) keep the meaning of
what they replaced."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reqbench.core.sandbox import SandboxOptions, run_sandboxed
from reqbench.core.sandbox.pump import Pump, Stream
from reqbench.core.sandbox.view import _under


def _started(code: str) -> tuple[subprocess.Popen[bytes], Stream, Stream, Pump]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out, err = Stream(proc.stdout.fileno(), 1 << 20), Stream(proc.stderr.fileno(), 10)
    return proc, out, err, Pump(proc, [out, err])


def test_pump_returns_the_exit_code_with_all_output() -> None:
    proc, out, err, pump = _started("import sys; print('x' * 300000); sys.stderr.write('e' * 25); sys.exit(7)")
    assert pump.wait(30) == 7  # 300 kB is more than a pipe holds: read while the process ran
    pump.finish(5)
    assert bytes(out.data) == b"x" * 300000 + b"\n" and not out.truncated and not out.incomplete
    assert bytes(err.data) == b"e" * 10 and err.truncated  # capped at 10 bytes, the rest discarded


def test_pump_without_timeout_and_for_an_already_reaped_process() -> None:
    proc, _, _, pump = _started("pass")
    assert pump.wait(None) == 0
    assert pump.wait(5) == 0  # reaped already: no pidfd, polled


def test_pump_raises_at_the_timeout_and_leaves_the_process_running() -> None:
    proc, _, _, pump = _started("import time; time.sleep(30)")
    try:
        started = time.monotonic()
        with pytest.raises(subprocess.TimeoutExpired):
            pump.wait(0.2)
        assert time.monotonic() - started < 10
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()


def test_a_pipe_a_descendant_still_holds_is_incomplete_after_the_grace_period() -> None:
    proc, out, _, pump = _started("import subprocess, sys; subprocess.Popen(['sleep', '30']); print('started')")
    assert pump.wait(30) == 0
    pump.finish(0.3)  # the sleeping grandchild still holds stdout
    assert out.incomplete and bytes(out.data).startswith(b"started")


def test_run_sandboxed_reads_the_channel_and_closes_the_handed_over_write_end(tmp_path: Path) -> None:
    read_fd, write_fd = os.pipe()
    try:
        result = run_sandboxed([sys.executable, "-c", f"import os; os.write({write_fd}, b'evidence')"], tmp_path,
                               pass_fds=(write_fd,), channel_fd=read_fd, timeout=60)
        assert result.exit_code == 0 and result.channel == b"evidence" and not result.channel_overflow
        with pytest.raises(OSError):  # the harness's copy of the write end was closed
            os.fstat(write_fd)
    finally:
        os.close(read_fd)


@pytest.mark.parametrize(("path", "parent", "under"), [
    ("/a/b", "/a/b", True), ("/a/b/c", "/a/b", True), ("/a/bc", "/a/b", False), ("/a", "/a/b", False),
    ("/x", "/", True), ("/", "/", True), ("/usr/lib", "/usr", True), ("/usrx", "/usr", False)])
def test_under_is_path_containment(path: str, parent: str, under: bool) -> None:
    assert _under(Path(path), Path(parent)) is under


def test_an_infinite_timeout_is_no_limit_and_a_nan_one_is_refused(tmp_path: Path) -> None:
    """The Python API's natural spelling of "no limit" (`math.inf`) waits like None (it crashed the wait,
    which counts in milliseconds); NaN is no timeout at all."""
    result = run_sandboxed(["sh", "-c", "sleep 0.2; echo done"], tmp_path, timeout=math.inf)
    assert result.exit_code == 0 and result.stdout.strip() == b"done" and not result.timed_out
    assert SandboxOptions(timeout=math.inf).timeout is None
    with pytest.raises(ValueError, match="NaN"):
        SandboxOptions(timeout=math.nan)
