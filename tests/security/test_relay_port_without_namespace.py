"""Threat: rows that run without a network namespace (``--unsafe-no-sandbox`` where neither bubblewrap nor
``unshare`` works) put their model-gateway relay on the host's loopback. On a fixed port, a second row (or
anything else already listening there) takes it: the relay cannot bind and the agent never starts, or the
agent is told an address that is not its own relay. The relay takes a free host port instead (`bridge`)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from reqbench.core.sandbox import available_isolation, run_sandboxed
from reqbench.core.sandbox.bridge import BRIDGE_PORT


@pytest.fixture
def no_namespace(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Isolation forced to none for this test only (the isolation is probed once per process)."""
    monkeypatch.setenv("REQBENCH_SANDBOX", "none")
    available_isolation.cache_clear()
    yield
    monkeypatch.delenv("REQBENCH_SANDBOX")
    available_isolation.cache_clear()


@pytest.fixture
def other_row() -> Iterator[None]:
    """The fixed relay port of the host's loopback taken, as by another row's relay (when something else
    holds it already, that is the same situation)."""
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", BRIDGE_PORT))
        sock.listen(1)
    except OSError:
        pass
    yield
    sock.close()


def test_without_a_network_namespace_the_relay_never_takes_the_fixed_port(
        tmp_path: Path, no_namespace: None, other_row: None) -> None:
    gateway = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    gateway.bind(str(tmp_path / "gateway.sock"))
    gateway.listen(1)
    work = tmp_path / "work"
    work.mkdir()
    try:
        result = run_sandboxed(["sh", "-c", "echo agent started"], work, timeout=30,
                               gateway_socket=tmp_path / "gateway.sock",
                               stdout_path=tmp_path / "out.txt", stderr_path=tmp_path / "err.txt")
    finally:
        gateway.close()
    assert result.isolation == "none"
    assert result.exit_code == 0, (tmp_path / "err.txt").read_text()
    assert (tmp_path / "out.txt").read_text() == "agent started\n"
