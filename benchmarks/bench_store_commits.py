"""What recording model calls into the run store adds to the gateway's latency under concurrent rows.

N rows call at once (``--streams``), each with its own lease and kept-alive connection, from one asyncio
process; a loopback fake provider in another process answers at once. Every request is a conversation turn
with fresh content (a shared system prompt and ~2 KB of new tool output), so each call adds new parts to the
store. Rounds rotate over four sides (a short pause after each), so all see the same concurrency and the same
machine moments:

* ``direct`` -- straight to the provider (the baseline of "added" latency);
* ``no store`` -- through a gateway that records into memory only;
* ``per-call commit`` -- through a gateway whose recorder commits each call in a transaction of its own on
  a connection of its own, as the store did before its group-commit writer (kept here as the baseline);
* ``grouped`` -- through a gateway recording into a run store as reqbench does (`core.store.writer`).

Printed: p50 and p99 of each side, the added p50/p99 of each gateway side (its percentile minus the direct
one), the grouped writer's calls per transaction, and the figures: the grouped side's p50 and p99 against
the per-call side's and against the no-store side's (whole latencies: on a loaded machine the difference of
two p99s is mostly noise).

    python benchmarks/bench_store_commits.py [--streams 50] [--rounds 40]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_gateway import Provider, ProviderServer, percentile

from reqbench.core.llm.gateway import (
    Gateway,
    MemoryRecorder,
    ModelCall,
    ModelPolicy,
    RowBudget,
    StoreRecorder,
    Upstream,
)
from reqbench.core.llm.gateway.recorder import _insert
from reqbench.core.llm.pricing import Price
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.writer import writer_for

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

SIDES = ("direct", "no store", "per-call commit", "grouped")
SETTLE_SECONDS = 0.1
"""Pause after each side's round: the grouped side's writes end before the next side is timed."""
SYSTEM = "You are a coding agent working in a repository. Follow the instructions. " * 30


class PerCallRecorder(StoreRecorder):
    """The store's recording before its group-commit writer: one connection and one transaction per call."""

    def record(self, call: ModelCall, bound: int | None = None) -> None:
        conn = sqlite3.connect(self.db_path, timeout=30.0, isolation_level=None)
        try:
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("BEGIN IMMEDIATE")
            try:
                added = _insert(call, conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            conn.close()
        if bound is not None:
            self.quota(call.row_key, bound).settle(0, added)


def serve_provider(port: Any) -> None:
    server = ProviderServer(("127.0.0.1", 0), Provider)
    server.daemon_threads = True
    port.put(server.server_address[1])
    server.serve_forever()


def client_load(urls: dict[str, str], tokens: dict[str, list[str]], rounds: int, out: Any) -> None:
    """Every stream calling at once; rounds rotate over the sides (round 0 opens the connections)."""
    import asyncio
    import time

    import httpx

    async def run() -> dict[str, list[float]]:
        times: dict[str, list[float]] = {side: [] for side in SIDES}
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        clients = {side: httpx.AsyncClient(timeout=120, limits=limits) for side in SIDES}
        try:
            async def one(side: str, stream: int, turn: int, keep: bool) -> None:
                body = {"model": "bench-model", "max_tokens": 64,
                        "messages": [{"role": "system", "content": SYSTEM},
                                     {"role": "user", "content": f"turn {turn} stream {stream} output:\n"
                                      + os.urandom(1024).hex()}]}
                started = time.perf_counter()
                resp = await clients[side].post(urls[side] + "/chat/completions", json=body,
                                                headers={"Authorization": f"Bearer {tokens[side][stream]}"})
                assert resp.status_code == 200, resp.text
                if keep:
                    times[side].append((time.perf_counter() - started) * 1000)

            for turn in range(rounds + 1):
                order = SIDES[turn % len(SIDES):] + SIDES[:turn % len(SIDES)]
                for side in order:
                    await asyncio.gather(*(one(side, s, turn, turn > 0) for s in range(len(tokens[side]))))
                    await asyncio.sleep(SETTLE_SECONDS)
        finally:
            for client in clients.values():
                await client.aclose()
        return times

    out.put(asyncio.run(run()))


def main(streams: int, rounds: int) -> None:
    ctx = multiprocessing.get_context("spawn")
    port = ctx.Queue()
    serving = ctx.Process(target=serve_provider, args=(port,), daemon=True)
    serving.start()
    base = f"http://127.0.0.1:{port.get(timeout=60)}/v1"
    meta = RunMeta(suite_path="/s", protocol="bench", options={}, created=utc_now(), reqbench_version="0")
    with tempfile.TemporaryDirectory() as tmp:
        stores = {side: RunStore.create(Path(tmp) / side.replace(" ", "-"), meta)
                  for side in ("per-call commit", "grouped")}
        recorders = {"no store": MemoryRecorder(),
                     "per-call commit": PerCallRecorder.for_store(stores["per-call commit"]),
                     "grouped": StoreRecorder.for_store(stores["grouped"])}
        prices = {"bench-model": Price(1.0, 2.0)}
        gateways = {side: Gateway(Upstream(base, "sk-bench"), recorder=recorder, prices=prices)
                    for side, recorder in recorders.items()}
        for gateway in gateways.values():
            gateway.start()
        writer = writer_for(stores["grouped"].run_dir / "run.sqlite")
        try:
            tokens = {"direct": ["sk-bench"] * streams}
            for side, gateway in gateways.items():
                tokens[side] = [gateway.open_row(f"row{i}", RowBudget(max_cost_usd=1e6, max_calls=rounds + 10),
                                                 models=ModelPolicy("bench-model")).token for i in range(streams)]
            urls = {"direct": base, **{side: gw.base_url for side, gw in gateways.items()}}
            out = ctx.Queue()
            load = ctx.Process(target=client_load, args=(urls, tokens, rounds, out))
            load.start()
            times = out.get(timeout=3600)
            load.join()
        finally:
            for gateway in gateways.values():
                gateway.stop()
        calls = sum(1 for _ in StoreRecorder.for_store(stores["grouped"]).calls())
        commits = writer.commits
        for store in stores.values():
            store.close()
    serving.terminate()

    direct = {q: percentile(times["direct"], q) for q in (0.5, 0.99)}
    added: dict[str, dict[float, float]] = {}
    for side in SIDES:
        p50, p99 = percentile(times[side], 0.5), percentile(times[side], 0.99)
        line = f"{streams} streams, {side}: p50 {p50:.1f} ms, p99 {p99:.1f} ms ({len(times[side])} calls)"
        if side != "direct":
            added[side] = {0.5: p50 - direct[0.5], 0.99: p99 - direct[0.99]}
            line += f"; added p50 {added[side][0.5]:.1f} ms, p99 {added[side][0.99]:.1f} ms"
        print(line)
    print(f"grouped writer: {calls} calls in {commits} transactions ({calls / max(commits, 1):.1f} calls each)")
    print(json.dumps({"streams": streams, "rounds": rounds, "added": {s: {"p50": v[0.5], "p99": v[0.99]}
                                                                      for s, v in added.items()}}))
    for q, label in ((0.99, "p99"), (0.5, "p50")):  # whole latencies: "added" subtracts two noisy figures
        grouped = percentile(times["grouped"], q)
        figure(f"gateway at {streams} streams, call {label}: grouped commits", grouped, "per-call commits",
               percentile(times["per-call commit"], q), goal="< 1", unit="ms")
        figure(f"gateway at {streams} streams, call {label}: grouped commits vs no store", grouped, "no store",
               percentile(times["no store"], q), unit="ms")

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=50, help="rows calling at once")
    parser.add_argument("--rounds", type=int, default=10 if os.environ.get("REQBENCH_BENCH_QUICK") else 40,
                        help="calls per stream and side")
    args = parser.parse_args()
    main(args.streams, args.rounds)
