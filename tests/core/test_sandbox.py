"""The sandbox holds: no network, no writes outside the workspace, nothing survives the timeout."""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core import sandbox
from reqbench.core.sandbox import available_isolation, run_sandboxed

needs_isolation = pytest.mark.skipif(available_isolation() == "none", reason="no sandbox on this machine")
needs_bwrap = pytest.mark.skipif(available_isolation() != "bwrap", reason="bubblewrap not usable here")


@pytest.fixture
def tcp_server() -> Iterator[int]:
    """A real TCP server on 127.0.0.1 that answers every connection with b'hello'."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conn.sendall(b"hello")
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield srv.getsockname()[1]
    stop.set()
    thread.join()
    srv.close()


CONNECT = ("import socket,sys\ns=socket.create_connection(('127.0.0.1',int(sys.argv[1])),timeout=3)\n"
           "print(s.recv(5).decode())")


@needs_isolation
def test_sandbox_has_no_route_to_a_loopback_server(tmp_path: Path, tcp_server: int) -> None:
    blocked = run_sandboxed([sys.executable, "-c", CONNECT, str(tcp_server)], tmp_path, timeout=30)
    assert blocked.exit_code not in (0, None) and b"hello" not in blocked.stdout
    allowed = run_sandboxed([sys.executable, "-c", CONNECT, str(tcp_server)], tmp_path, timeout=30,
                            network=True)
    assert allowed.exit_code == 0 and allowed.stdout == b"hello\n"


@needs_bwrap
def test_writes_outside_the_workspace_fail(tmp_path: Path) -> None:
    ws, outside, extra = tmp_path / "ws", tmp_path / "outside", tmp_path / "extra"
    for d in (ws, outside, extra):
        d.mkdir()
    (outside / "keep.txt").write_text("original\n")
    script = (f"echo mine > inside.txt; echo x > {outside}/new.txt; echo y > {outside}/keep.txt;"
              f" rm -f {outside}/keep.txt; echo z > {extra}/ok.txt; echo h > $HOME/h; echo t > /tmp/t;"
              " echo w > /usr/evil.txt; exit 0")
    result = run_sandboxed(script, ws, timeout=30, writable=[extra])
    assert result.exit_code == 0
    assert (ws / "inside.txt").read_text() == "mine\n"
    assert (extra / "ok.txt").read_text() == "z\n"
    assert not (outside / "new.txt").exists()
    assert (outside / "keep.txt").read_text() == "original\n"
    assert not Path("/usr/evil.txt").exists()
    assert b"Read-only file system" in result.stderr


def test_runaway_children_are_killed_at_the_timeout(tmp_path: Path) -> None:
    # eight detached loops (own sessions, so not in the process group) plus a blocked parent
    loop = "while :; do echo x >> beat; sleep 0.05; done"
    script = f"for i in 1 2 3 4 5 6 7 8; do (setsid sh -c '{loop}' &); done; sleep 60"
    start = time.monotonic()
    result = run_sandboxed(script, tmp_path, timeout=1.5)
    assert result.timed_out and result.exit_code is None
    assert time.monotonic() - start < 15
    size = (tmp_path / "beat").stat().st_size
    assert size > 0
    time.sleep(0.6)
    assert (tmp_path / "beat").stat().st_size == size


def test_daemon_left_behind_by_a_finished_command_is_killed(tmp_path: Path) -> None:
    result = run_sandboxed("(setsid sh -c 'sleep 0.3; echo late > late.txt' &) ; exit 0", tmp_path,
                           timeout=30)
    assert result.exit_code == 0
    time.sleep(0.8)
    assert not (tmp_path / "late.txt").exists()


def test_environment_is_scrubbed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_API_KEY", "s3cret")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA")
    result = run_sandboxed("env", tmp_path, timeout=30, env={"MY_VAR": "given"})
    env = dict(line.split("=", 1) for line in result.stdout.decode().splitlines() if "=" in line)
    assert "SECRET_API_KEY" not in env and "AWS_ACCESS_KEY_ID" not in env
    assert env["MY_VAR"] == "given"
    assert env["HOME"] != os.environ.get("HOME") and env["HOME"] != str(Path.home())
    assert "PATH" in env and env["TMPDIR"]


def test_output_is_capped_and_kept_in_files(tmp_path: Path) -> None:
    out, err = tmp_path / "out.log", tmp_path / "err.log"
    result = run_sandboxed("head -c 200000 /dev/zero; echo oops >&2", tmp_path, timeout=30,
                           stdout_path=out, stderr_path=err, output_cap_bytes=1000)
    assert result.exit_code == 0 and result.truncated
    assert out.stat().st_size == 1000
    assert err.read_text() == "oops\n" and result.stderr_tail() == "oops\n"


def test_start_failures_are_reported_not_raised(tmp_path: Path) -> None:
    missing = run_sandboxed(["no-such-program-xyz"], tmp_path, timeout=30)
    assert missing.exit_code is None and "no-such-program-xyz" in (missing.start_error or "")
    nowhere = run_sandboxed(["true"], tmp_path / "absent", timeout=30)
    assert nowhere.exit_code is None and nowhere.start_error


def test_exit_code_is_the_commands_even_when_it_imitates_bwrap(tmp_path: Path) -> None:
    result = run_sandboxed("echo 'bwrap: execvp failed' >&2; exit 1", tmp_path, timeout=30)
    assert result.exit_code == 1 and result.start_error is None
    killed = run_sandboxed("kill -9 $$", tmp_path, timeout=30)
    assert killed.exit_code == 137


@pytest.mark.parametrize("mode", ["none", "unshare"])
def test_fallback_modes_still_time_out_and_scrub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 mode: str) -> None:
    if mode == "unshare" and available_isolation() == "none":
        pytest.skip("unshare not usable here")
    monkeypatch.setenv("REQBENCH_SANDBOX", mode)
    monkeypatch.setenv("SECRET_API_KEY", "s3cret")
    sandbox.available_isolation.cache_clear()
    try:
        result = run_sandboxed("echo ${SECRET_API_KEY:-none}; sleep 30", tmp_path, timeout=1)
        assert result.isolation == mode and result.timed_out
        assert result.stdout == b"none\n"
    finally:
        sandbox.available_isolation.cache_clear()
