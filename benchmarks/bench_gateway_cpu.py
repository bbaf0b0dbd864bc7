"""The gateway's CPU per call when it is the bottleneck: a provider that answers at once, N rows calling
through the gateway in a closed loop, the gateway's process CPU divided by the calls it forwarded.

`bench_gateway_streams.py` measures latency with 1 s answers, where the gateway idles most of the time and
its CPU per call is read off a busy machine's noise; here nothing waits but the gateway, so the figure is
what one call costs it (the agent-facing HTTP side, JSON, leases, the SSE rewrite, the forwarder; no store).
The fake provider (`stream_load.serve`, one process) and the load generator (`stream_load.drive`, one
process, raw sockets on asyncio) run apart; the gateway runs alone in a process of its own, measured over a
window after a second of warm-up. With ``--baseline OTHER/src`` the same measure runs with another source
tree of reqbench (e.g. the commit before a change), alternating with this one round by round.

    python benchmarks/bench_gateway_cpu.py [--streams 50] [--seconds 6] [--rounds 3] [--baseline OTHER/src]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import stream_load  # noqa: E402
from ratios import figure  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def one(streams: int, seconds: float) -> dict[str, float]:
    """Measure the gateway of whichever reqbench this interpreter imports (module docstring)."""
    from bench_gateway_streams import PATH, NoStore

    from reqbench.core.llm.gateway import Gateway, ModelPolicy, RowBudget, Upstream
    from reqbench.core.llm.pricing import Price

    ctx = multiprocessing.get_context("spawn")
    sock = stream_load.listening_socket()
    provider = ctx.Process(target=stream_load.serve, args=(sock, 1, 0.0), daemon=True)
    provider.start()
    gateway = Gateway(Upstream(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", "sk-bench"), recorder=NoStore(),
                      prices={stream_load.MODEL: Price(1.0, 2.0)})
    try:
        with gateway:
            port = int(gateway.base_url.rsplit(":", 1)[1].split("/")[0])
            plan = [("gateway", port, PATH, gateway.open_row(f"row{i}", RowBudget(max_calls=10**9),
                                                            models=ModelPolicy(stream_load.MODEL)).token)
                    for i in range(streams)]
            queue = ctx.Queue()
            loader = ctx.Process(target=stream_load.drive, args=(plan, 0.05, 1.0, seconds + 0.5, 10**9, queue))
            loader.start()
            time.sleep(1.5)
            calls, cpu, began = gateway.upstream_requests, _cpu(), time.monotonic()
            time.sleep(seconds)
            calls, cpu = gateway.upstream_requests - calls, _cpu() - cpu
            elapsed = time.monotonic() - began
            errors = queue.get(timeout=seconds + 120)[1]
            loader.join()
    finally:
        provider.terminate()
        sock.close()
    return {"ms_per_call": 1000 * cpu / max(1, calls), "calls_per_s": calls / elapsed, "errors": len(errors)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree to measure beside this one")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.streams, args.seconds)), flush=True)
        return
    sides = [("this tree", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in sides}
    print(f"load average {os.getloadavg()[0]:.2f}; {args.streams} rows calling at once, an instant provider, "
          f"{args.seconds:g} s windows x {args.rounds} rounds per side")
    for _ in range(args.rounds):
        for name, src in sides:
            env = {**os.environ, "PYTHONPATH": str(src)}
            out = subprocess.run([sys.executable, __file__, "--one", "--streams", str(args.streams), "--seconds",
                                  str(args.seconds)], env=env, capture_output=True, text=True, check=True)
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for name, rounds in results.items():
        each = ", ".join(f"{r['ms_per_call']:.3f}" for r in rounds)
        print(f"{name}: gateway CPU per call median {statistics.median(r['ms_per_call'] for r in rounds):.3f} ms "
              f"(rounds: {each}); calls per second "
              f"{statistics.median(r['calls_per_s'] for r in rounds):.0f}; errors {sum(r['errors'] for r in rounds)}")
    if args.baseline:
        figure("gateway CPU per call at saturation", statistics.median(r["ms_per_call"] for r in results["this tree"]),
               "baseline tree", statistics.median(r["ms_per_call"] for r in results["baseline"]), goal="< 1",
               unit="ms")


if __name__ == "__main__":
    main()
