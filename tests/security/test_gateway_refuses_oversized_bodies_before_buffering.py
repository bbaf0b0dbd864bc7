"""Threat: a hostile agent sends the model gateway bodies the harness cannot afford -- hundreds of MiB with a
``Content-Length``, the same as an endless chunked stream, a body of countless tiny JSON values, or a body with
no valid token at all -- or fills the run store with model traffic. (Before the defence, a 384 MiB body took
the harness to 2.4 GB of memory and wrote 384 MiB into ``run.sqlite``.)

The gateway runs here as its own process (the harness side of a row, `gateway_host`) so its peak memory
(``VmHWM``) is measured from outside: it must stay flat while 200 MiB bodies are thrown at it, the run store
must not grow by the body, the refused calls must be recorded as a digest only, and the row must be marked
``resource_limit``. The store quota is shown in process, on a real run store."""

from __future__ import annotations

import json
import secrets
import socket
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx

from reqbench.core.llm.gateway import Gateway, GatewayLimits, StoreRecorder, Upstream
from reqbench.core.llm.gateway.limits import DEFAULT_MAX_BODY
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.cli.generic_helpers import REPO, cli_env
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body

MiB = 1024**2
ATTACK = 200 * MiB
PREFIX = b'{"model": "scripted", "messages": [{"role": "user", "content": "'


def peak_rss(pid: int) -> int:
    """The process's peak resident set size (``VmHWM``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def store_bytes(run_dir: Path) -> int:
    return sum(p.stat().st_size for p in run_dir.glob("run.sqlite*"))


def attack(url: str, token: str, *, total: int, chunked: bool, send_body: bool = True) -> tuple[int, str]:
    """POST a `total`-byte body (declared by Content-Length, or chunked) over a raw socket, reading the answer
    while sending; returns (status, body). Sending stops when the gateway closes the connection."""
    host, port = url.removeprefix("http://").split("/")[0].split(":")
    sock = socket.create_connection((host, int(port)), timeout=60)
    head = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n")
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {total}\r\n\r\n"
    answer = bytearray()

    def read() -> None:
        try:
            while data := sock.recv(65536):
                answer.extend(data)
        except OSError:
            pass

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        sock.sendall(head.encode())
        sent, piece = 0, PREFIX + b"x" * (MiB - len(PREFIX))
        while send_body and sent < total:
            data = piece if sent == 0 else b"x" * min(MiB, total - sent)
            sock.sendall(f"{len(data):x}\r\n".encode() + data + b"\r\n" if chunked else data)
            sent += len(data)
        if send_body and chunked:
            sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass  # the gateway stopped reading: what it answered is in `answer`
    reader.join(timeout=60)
    sock.close()
    status_line, _, rest = bytes(answer).partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2].decode("utf-8", "replace")


def test_gateway_refuses_oversized_bodies_before_buffering(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with ScriptedOpenAI(lambda body, i: Reply(body=chat_body("ok"))) as upstream:
        host = subprocess.Popen([sys.executable, "-m", "tests.security.gateway_host", str(run_dir), upstream.base_url],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, env=cli_env())
        try:
            assert host.stdout is not None and host.stdin is not None
            info = json.loads(host.stdout.readline())
            url, token, pid = info["url"], info["token"], info["pid"]
            warm = httpx.post(url + "/chat/completions", headers={"Authorization": f"Bearer {token}"},
                              json={"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}, timeout=30)
            assert warm.status_code == 200
            rss0, db0 = peak_rss(pid), store_bytes(run_dir)

            # no valid token: refused before a byte of the declared 200 MiB is read (none is ever sent)
            assert attack(url, "rbgw-guess", total=ATTACK, chunked=False, send_body=False)[0] == 401
            declared = attack(url, token, total=ATTACK, chunked=False)
            streamed = attack(url, token, total=ATTACK, chunked=True)
            many_values = b"[" + b"[]," * (6 * MiB) + b"[]]"  # 18 MiB: under the cap, millions of lists
            values = httpx.post(url + "/chat/completions", content=many_values, timeout=60,
                                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            after = httpx.post(url + "/chat/completions", headers={"Authorization": f"Bearer {token}"},
                               json={"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}, timeout=30)
            rss1, db1 = peak_rss(pid), store_bytes(run_dir)
        finally:
            assert host.stdin is not None and host.stdout is not None
            host.stdin.close()
            usage: dict[str, Any] = json.loads(host.stdout.readline() or "{}")
            host.wait(timeout=60)
        assert len(upstream.requests) == 1  # only the warm-up call went upstream

    for status, body in (declared, streamed):
        assert status == 413, body
        assert json.loads(body)["error"]["code"] == "resource_limit" and "over the gateway's limit" in body
    assert values.status_code == 413 and "JSON values" in values.text
    assert after.status_code == 400 and after.json()["error"]["code"] == "resource_limit"  # the row is over
    assert rss1 - rss0 < 64 * MiB, f"harness peak RSS grew by {(rss1 - rss0) / MiB:.0f} MiB"
    assert db1 - db0 < MiB, f"run store grew by {(db1 - db0) / MiB:.1f} MiB"
    assert usage["resource_limit"].startswith("resource limit") and usage["refused"] == 4

    refused = [c for c in StoreRecorder(run_dir / "run.sqlite").calls("row") if c.source == "refused"]
    digests = [c.request["reqbench_refused_request"] for c in refused]
    assert [d["bytes"] for d in digests[:2]] == [ATTACK, DEFAULT_MAX_BODY + MiB]  # declared; streamed so far
    assert all(len(d["head"]) <= 1024 and d["head"].startswith(PREFIX.decode()) for d in digests[:2])
    assert all(len(json.dumps(c.request)) < 2048 for c in refused)


def call(gw: Gateway, token: str, text: str) -> httpx.Response:
    return httpx.post(gw.base_url + "/chat/completions", headers={"Authorization": f"Bearer {token}"},
                      json={"model": "scripted", "messages": [{"role": "user", "content": text}]}, timeout=30)


def test_model_traffic_stops_at_the_rows_store_bound(tmp_path: Path) -> None:
    """Calls of 100 kB of distinct content against a 200 kB store bound per row: the third is refused before it
    is forwarded, the row is marked ``resource_limit`` and every later call of it refused; the bound is the
    row's, so the next row's calls go through, and the table holds no more than the bound per row."""
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    limits = GatewayLimits(row_store_bytes=200_000)
    with ScriptedOpenAI(lambda body, i: Reply(body=chat_body("ok"))) as upstream:
        with Gateway(Upstream(upstream.base_url, "k"), recorder=StoreRecorder.for_store(store), limits=limits) as gw:
            lease = gw.open_row("row-1")
            statuses = [call(gw, lease.token, secrets.token_urlsafe(75_000)).status_code for _ in range(4)]
            small = call(gw, lease.token, "hi")
        with Gateway(Upstream(upstream.base_url, "k"), recorder=StoreRecorder.for_store(store), limits=limits) as gw:
            other = gw.open_row("row-2")
            next_row = call(gw, other.token, secrets.token_urlsafe(75_000))
        assert len(upstream.requests) == 3
    assert statuses == [200, 200, 400, 400] and small.status_code == 400
    assert "store bound" in small.json()["error"]["message"]
    assert lease.usage()["resource_limit"].startswith("resource limit") and lease.usage()["calls"] == 2
    assert next_row.status_code == 200 and other.usage()["resource_limit"] is None
    store.close()
    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    kept = conn.execute("SELECT SUM(LENGTH(data)) FROM blobs").fetchone()[0]
    conn.close()
    assert kept < 3 * 100_000
