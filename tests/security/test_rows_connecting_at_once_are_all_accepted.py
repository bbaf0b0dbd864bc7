"""Threat: with hundreds of rows in flight, their agents open connections to the gateway at the same moment;
a listen backlog of a few connections drops the rest (reset, or a SYN retried a second later), so calls fail
or stall for reasons no agent caused and a run's latencies and outcomes depend on how many rows ran at once.

The gateway's listening sockets queue `LISTEN_BACKLOG` (1,024) connections: 300 connecting at once, none of
them accepted yet, are all queued by the kernel and all served."""

from __future__ import annotations

import socket
import threading
import time

from reqbench.core.llm.gateway import Gateway


def test_three_hundred_connections_at_once_are_all_queued_and_served() -> None:
    with Gateway(offline=True) as gw:
        host, port = gw.base_url.split("//")[1].split("/")[0].split(":")
        start = threading.Barrier(300)
        waits: list[float] = []
        failures: list[str] = []
        lock = threading.Lock()

        def connect() -> None:
            start.wait()
            began = time.perf_counter()
            try:
                with socket.create_connection((host, int(port)), timeout=10) as conn:
                    conn.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    if not conn.recv(12).startswith(b"HTTP/1."):
                        raise OSError("no HTTP answer")
            except OSError as exc:
                with lock:
                    failures.append(repr(exc))
                return
            with lock:
                waits.append(time.perf_counter() - began)

        threads = [threading.Thread(target=connect) for _ in range(300)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []
    assert max(waits) < 0.9, f"a connection waited {max(waits):.2f} s (a dropped SYN is retried after 1 s)"
