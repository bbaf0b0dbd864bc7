"""Model gateway overhead: the latency one call gains by going through the gateway instead of straight to the
provider.

A loopback fake provider answers a small Chat Completions call at once; the same request is sent to it
directly and through a `Gateway` (token check, body cap, model policy, budget reservation, forwarding,
recording into a real run store with ``synchronous=FULL``), the two interleaved call by call over kept-alive
connections. Printed: p50 and p99 of each path and of the added latency, and the gateway's p50 and p99 as
ratios to the direct call's. The provider answers in well under a millisecond here, so the ratio is the
gateway's cost at its most visible; a real provider takes hundreds of milliseconds to seconds per call.

Many rows calling at once: `bench_gateway_streams.py`.

    python benchmarks/bench_gateway.py [--calls N] [--no-store]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from reqbench.core.llm.gateway import Gateway, ModelPolicy, RowBudget, StoreRecorder, Upstream
from reqbench.core.llm.pricing import Price
from reqbench.core.store import RunMeta, RunStore, utc_now

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

ANSWER = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "bench-model",
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                                  "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 40, "completion_tokens": 2, "total_tokens": 42}}).encode()
REQUEST = {"model": "bench-model", "max_tokens": 64,
           "messages": [{"role": "system", "content": "You are a coding agent. " * 40},
                        {"role": "user", "content": "Fix the failing test in app.py."}]}


class Provider(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # like any real server

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class ProviderServer(ThreadingHTTPServer):
    request_queue_size = 1024  # a provider accepts many connections at once


def main(calls: int, no_store: bool = False) -> None:
    provider = ProviderServer(("127.0.0.1", 0), Provider)
    provider.daemon_threads = True
    threading.Thread(target=provider.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{provider.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore.create(Path(tmp) / "run", RunMeta(suite_path="/s", protocol="bench", options={},
                                                           created=utc_now(), reqbench_version="0"))
        gateway = Gateway(Upstream(base, "sk-bench"), recorder=None if no_store else StoreRecorder.for_store(store),
                          prices={"bench-model": Price(1.0, 2.0)})
        with gateway, httpx.Client(timeout=30) as direct, httpx.Client(timeout=30) as through:
            lease = gateway.open_row("row", RowBudget(max_cost_usd=1e6, max_calls=calls + 100),
                                     models=ModelPolicy("bench-model"))
            paths = {"direct": (direct, base, {"Authorization": "Bearer sk-bench"}),
                     "gateway": (through, gateway.base_url, {"Authorization": f"Bearer {lease.token}"})}
            times: dict[str, list[float]] = {name: [] for name in paths}
            for i in range(calls + 20):
                for name in (("direct", "gateway") if i % 2 else ("gateway", "direct")):
                    client, url, headers = paths[name]
                    started = time.perf_counter()
                    resp = client.post(url + "/chat/completions", json=REQUEST, headers=headers)
                    elapsed = time.perf_counter() - started
                    assert resp.status_code == 200, resp.text
                    if i >= 20:  # the first calls warm connections, imports and the store
                        times[name].append(elapsed * 1000)
        store.close()
    provider.shutdown()
    added = [g - d for g, d in zip(times["gateway"], times["direct"], strict=True)]
    for name, samples in (*times.items(), ("added", added)):
        print(f"{name}: p50 {percentile(samples, 0.5):.2f} ms, p99 {percentile(samples, 0.99):.2f} ms, "
              f"mean {statistics.fmean(samples):.2f} ms ({len(samples)} calls)")
    for q, label in ((0.5, "p50"), (0.99, "p99")):
        figure(f"gateway: call latency {label}", percentile(times["gateway"], q), f"direct call {label}",
               percentile(times["direct"], q), unit="ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=100 if os.environ.get("REQBENCH_BENCH_QUICK") else 400)
    parser.add_argument("--no-store", action="store_true", help="record nothing (shows what the store's commits cost)")
    args = parser.parse_args()
    main(args.calls, args.no_store)
