"""The gateway's CPU per forwarded call: its own kept-alive connections (`provider_wire`) against httpx's
client (the path it keeps for proxies, the only path before), side by side in one run.

A fake OpenAI-compatible provider (`stream_load.serve`, a process of its own, answering at once) takes N
sequential calls of a realistic request (a 2 KB chat body) from a `Forwarder` in this process, first over
one path and then the other, alternating in rounds so both see the same machine; the figure is the calling
thread's CPU time per call (`time.thread_time`: the provider's and the load's CPU are not in it), the median
of the rounds.

    python benchmarks/bench_forwarder.py [--calls 2000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

from reqbench.core.llm.gateway.proxied import HttpxPath
from reqbench.core.llm.gateway.upstream import Forwarder, Upstream

sys.path.insert(0, str(Path(__file__).parent))
import stream_load  # noqa: E402
from ratios import figure  # noqa: E402


def cpu_per_call(forwarder: Forwarder, calls: int) -> float:
    """Milliseconds of this thread's CPU per call over `calls` sequential calls."""
    body = dict(stream_load.REQUEST)
    began = time.thread_time()
    for _ in range(calls):
        status, _answer = forwarder.forward("chat", body, {})
        assert status == 200, _answer
    return 1000 * (time.thread_time() - began) / calls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000 if not os.environ.get("REQBENCH_BENCH_QUICK") else 300)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.calls} sequential calls x {args.rounds} rounds per path")
    sock = stream_load.listening_socket()
    provider = multiprocessing.get_context("spawn").Process(target=stream_load.serve, args=(sock, 1, 0.0),
                                                            daemon=True)
    provider.start()
    up = Upstream(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", "sk-bench")
    wire, through_httpx = Forwarder(up), Forwarder(up)
    through_httpx._proxied = HttpxPath(up, __import__("httpx").create_ssl_context())
    try:
        cpu_per_call(wire, 20), cpu_per_call(through_httpx, 20)  # connections open, code warm
        times: dict[str, list[float]] = {"wire": [], "httpx": []}
        for _ in range(args.rounds):
            times["httpx"].append(cpu_per_call(through_httpx, args.calls))
            times["wire"].append(cpu_per_call(wire, args.calls))
    finally:
        wire.close()
        through_httpx.close()
        provider.terminate()
        sock.close()
    for name, samples in times.items():
        print(f"{name}: CPU per call median {statistics.median(samples):.3f} ms "
              f"(rounds: {', '.join(f'{s:.3f}' for s in samples)})")
    figure("forwarder CPU per call: the gateway's own wire", statistics.median(times["wire"]), "httpx client",
           statistics.median(times["httpx"]), goal="< 1", unit="ms")


if __name__ == "__main__":
    main()
