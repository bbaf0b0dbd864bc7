"""The gateway under many concurrent streams: the latency it adds to a streamed call, against the same call
made straight to the provider at the same moment.

A fake OpenAI-compatible provider (`stream_load`, two processes on one port) streams each answer as SSE
chunks (default 20 chunks 50 ms apart: a 1 s answer); asked without ``stream`` -- as the gateway asks, it
forwards non-streamed and records the complete body -- it answers the same JSON after the same second. The
gateway runs in this process (nothing else does), recording into a real run store (``synchronous=FULL``)
or, on the ``no store`` sides, into nothing (a recorder that keeps nothing). Load generator processes of
their own (`stream_load.drive`, raw sockets on asyncio, several event loops) run N streams straight to the
provider **and** N streams through the gateway at the same time, each its own kept-alive connection
(through the gateway, each its own row lease), each calling in a closed loop with its first call at a
random moment of the first answer's length. Both paths see the same machine at the same moments; every
call started within the measured window counts, however long it takes.

Figures per (streams, store) pair: p50 and p99 of the total latency (request sent to the last byte) and of
the time to first byte on each path; the gateway's **added p99** (its p99 total minus the direct p99 total,
goal <= 20 ms at 500 streams) and added p50; the gateway process's CPU per call; the load generator's own
event loop lag (p99) and CPU, so a saturated load generator shows. The time to first byte through the
gateway is the provider's whole answer by design (the gateway forwards non-streamed and streams the
recorded body), so it is printed, not held to the goal.

    python benchmarks/bench_gateway_streams.py [--streams 50,500] [--store both|on|off] [--seconds 10]
        [--chunks 20] [--interval 0.05] [--loaders 4] [--calls 40]

``REQBENCH_BENCH_QUICK=1`` measures 50 and 500 streams for 4 s each, the store on only.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from reqbench.core.llm.gateway import Gateway, ModelPolicy, RowBudget, StoreRecorder, Upstream
from reqbench.core.llm.gateway.quota import TrafficQuota
from reqbench.core.llm.pricing import Price
from reqbench.core.store import RunMeta, RunStore, utc_now

sys.path.insert(0, str(Path(__file__).parent))
import stream_load  # noqa: E402
from ratios import figure  # noqa: E402

PATH = "/v1/chat/completions"
GOAL_MS = 20.0


class NoStore:
    """A recorder that keeps nothing (the ``no store`` sides): what the gateway costs by itself."""

    def record(self, call: Any, bound: int | None = None) -> None:
        pass

    def flush(self) -> None:
        pass

    def calls(self, row_key: str | None = None) -> list[Any]:
        return []

    def quota(self, row_key: str, limit: int) -> TrafficQuota:
        return TrafficQuota(limit)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def measure(port: int, streams: int, store: bool, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """One side-by-side run: `streams` direct and `streams` gateway streams at once (module docstring)."""
    ctx = multiprocessing.get_context("spawn")
    run = RunStore.create(tmp / f"run-{streams}-{int(store)}", RunMeta(
        suite_path="/s", protocol="bench", options={}, created=utc_now(), reqbench_version="0"))
    gateway = Gateway(Upstream(f"http://127.0.0.1:{port}/v1", "sk-bench"),
                      recorder=StoreRecorder.for_store(run) if store else NoStore(),
                      prices={stream_load.MODEL: Price(1.0, 2.0)})
    with gateway:
        gw_port = int(gateway.base_url.rsplit(":", 1)[1].split("/")[0])
        leases = [gateway.open_row(f"row{i}", RowBudget(max_cost_usd=1e6, max_calls=100_000),
                                   models=ModelPolicy(stream_load.MODEL)) for i in range(streams)]
        plan = [s for i, lease in enumerate(leases)
                for s in (("direct", port, PATH, "sk-bench"), ("gateway", gw_port, PATH, lease.token))]
        spread = args.chunks * args.interval
        queue = ctx.Queue()
        loaders = [ctx.Process(target=stream_load.drive, args=(plan[k::args.loaders], spread, 1.5 * spread + 0.5,
                                                               args.seconds, args.calls, queue))
                   for k in range(args.loaders)]
        sent_before = gateway.upstream_requests
        cpu_before = _own_cpu()
        began = time.monotonic()
        for loader in loaders:
            loader.start()
        results = [queue.get(timeout=args.seconds + 600) for _ in loaders]
        gateway_cpu = _own_cpu() - cpu_before
        elapsed = time.monotonic() - began
        forwarded = gateway.upstream_requests - sent_before
        for loader in loaders:
            loader.join()
    run.close()
    samples = [s for r in results for s in r[0]]
    errors = [e for r in results for e in r[1]]
    lags = [lag for r in results for lag in r[2]]
    sides = {side: {"ttfb": [1000 * t for s, t, _ in samples if s == side],
                    "total": [1000 * t for s, _, t in samples if s == side]} for side in ("direct", "gateway")}
    return {"sides": sides, "errors": errors, "lag_p99": 1000 * percentile(lags, 0.99),
            "loader_cpu": sum(r[3] for r in results), "gateway_cpu": gateway_cpu, "forwarded": forwarded,
            "elapsed": elapsed}


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def report(streams: int, store: bool, r: dict[str, Any], seconds: float) -> float:
    """Print one run's figures; returns the added p99 (ms)."""
    label = f"{streams} streams, {'recording' if store else 'no store'}"
    for side, times in r["sides"].items():
        print(f"[{label}] {side}: total p50 {percentile(times['total'], 0.5):.1f} ms, "
              f"p99 {percentile(times['total'], 0.99):.1f} ms; first byte p50 {percentile(times['ttfb'], 0.5):.1f} ms, "
              f"p99 {percentile(times['ttfb'], 0.99):.1f} ms ({len(times['total'])} calls)")
    direct, through = r["sides"]["direct"]["total"], r["sides"]["gateway"]["total"]
    added = percentile(through, 0.99) - percentile(direct, 0.99)
    added_p50 = percentile(through, 0.5) - percentile(direct, 0.5)
    per_call = 1000 * r["gateway_cpu"] / max(1, r["forwarded"])
    print(f"[{label}] added by the gateway: p50 {added_p50:+.1f} ms, p99 {added:+.1f} ms (goal <= {GOAL_MS:.0f} ms); "
          f"gateway CPU {per_call:.2f} ms per call ({r['forwarded']} calls forwarded, "
          f"{100 * r['gateway_cpu'] / r['elapsed']:.0f} % of one core); load generator: loop lag "
          f"p99 {r['lag_p99']:.1f} ms, CPU {r['loader_cpu']:.1f} s over ~{seconds:.0f} s")
    if r["errors"]:
        print(f"[{label}] errors ({len(r['errors'])} shown): " + "; ".join(r["errors"][:5]))
    figure(f"gateway streams {label}: added p99", added, f"{GOAL_MS:.0f} ms goal", GOAL_MS, goal="<= 1", unit="ms")
    figure(f"gateway streams {label}: total latency p99", percentile(through, 0.99), "direct p99",
           percentile(direct, 0.99), unit="ms")
    return added


def main() -> None:
    quick = bool(os.environ.get("REQBENCH_BENCH_QUICK"))
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", default="50,500", help="streams per path, comma-separated")
    parser.add_argument("--store", choices=("both", "on", "off"), default="on" if quick else "both")
    parser.add_argument("--seconds", type=float, default=4.0 if quick else 10.0, help="measured window per run")
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between the provider's chunks")
    parser.add_argument("--loaders", type=int, default=4, help="load generator processes")
    parser.add_argument("--calls", type=int, default=40, help="most measured calls per stream")
    parser.add_argument("--providers", type=int, default=2, help="provider processes")
    args = parser.parse_args()
    import reqbench

    print(f"load average {os.getloadavg()[0]:.2f}; provider answer {args.chunks} chunks x "
          f"{1000 * args.interval:.0f} ms; the gateway of {Path(reqbench.__file__).parent}")
    ctx = multiprocessing.get_context("spawn")
    sock = stream_load.listening_socket()
    port = sock.getsockname()[1]
    providers = [ctx.Process(target=stream_load.serve, args=(sock, args.chunks, args.interval), daemon=True)
                 for _ in range(args.providers)]
    for p in providers:
        p.start()
    stores = {"both": (False, True), "on": (True,), "off": (False,)}[args.store]
    try:
        with tempfile.TemporaryDirectory(prefix="bench-gw-", dir=Path(__file__).parent.parent) as tmp:
            for streams in (int(s) for s in args.streams.split(",")):
                for store in stores:
                    started = time.monotonic()
                    r = measure(port, streams, store, args, Path(tmp))
                    report(streams, store, r, time.monotonic() - started)
    finally:
        for p in providers:
            p.terminate()
        sock.close()


if __name__ == "__main__":
    main()
