"""The viewer's row table at 10,000 rows, server side: `reqbench view` must stay usable on a large run.

Builds a 10,000-row run store (mixed outcomes, scores, reasons, costs; 2,000 rows with
``REQBENCH_BENCH_QUICK=1``), then times what the server does for the row table: building the row index once
(first request), and rendering the page — default order, sorted by score, filtered by outcome, a text
search and the last page — through `Viewer.route`, plus one real HTTP request on 127.0.0.1. The baseline of
every page figure is the same page of a one-page run (50 rows, so both render a full page) measured beside
it: the ratio is what the run's size costs (the index makes sorting and paging SQL over an in-memory table;
a text search scans it). Goal: every page well under 0.1 s at 10,000 rows. The index build (once per run,
on the first request) is given in CPU units.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.viewer import make_server
from reqbench.report.viewer.index import PAGE_SIZE
from reqbench.report.viewer.server import Viewer

sys.path.insert(0, str(Path(__file__).parent))
from ratios import cpu_unit, figure  # noqa: E402

REASONS = ("passed", "checks_failed", "agent_timeout", "patch_apply", "empty_submission")


def build_run(path: Path, n: int) -> Path:
    meta = RunMeta(suite_path="/suite", protocol="specpath", options={"agent": "bench"}, created=utc_now(),
                   reqbench_version="0")
    rows = [Row(f"task{i // 8:05d}", f"C{i % 8}", "bench", 0) for i in range(n)]
    with RunStore.create(path, meta) as store:
        store.add_plan(rows)
        for i, row in enumerate(rows):
            passed = i % 3 == 0
            status = RowStatus.INVALID if i % 97 == 0 else RowStatus.SCORED
            result = {"outcome": "pass" if passed else "fail", "score": round((i * 37 % 101) / 100, 2),
                      "reason": REASONS[i % len(REASONS)],
                      "agent": {"usage": {"prompt_tokens": 1000 + i, "completion_tokens": 200,
                                          "cost_usd": 0.001 * (i % 50)}, "wall_seconds": 1.0 + i % 60}}
            store.record_attempt(row, RowOutcome(status, result=result))
    return path


def timed(fn: Callable[[], object], repeat: int = 7) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


PAGES = {
    "default order": {},
    "sorted by score, descending": {"sort": "score", "dir": "desc"},
    "filtered by outcome": {"outcome": "fail"},
    "text search": {"q": "timeout"},
    "last page": {"page": "last"},  # the run's real last page (OFFSET to the end of the table)
}


def main() -> None:
    n = 2000 if os.environ.get("REQBENCH_BENCH_QUICK") else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        big = build_run(Path(tmp) / "big", n)
        print(f"built a {n}-row run store in {time.perf_counter() - start:.1f} s")
        small = build_run(Path(tmp) / "small", PAGE_SIZE)
        viewers = {"big": Viewer(big), "small": Viewer(small)}
        try:
            run_big = next(iter(viewers["big"].runs.values()))
            start = time.perf_counter()
            run_big.index()
            build = time.perf_counter() - start
            next(iter(viewers["small"].runs.values())).index()
            figure(f"viewer: row index of {n} rows (first request)", build, "CPU unit", cpu_unit(),
                   goal="a few CPU units")
            for label, query in PAGES.items():
                def page(which: str, q: dict[str, str] = query) -> object:
                    v = viewers[which]
                    name = next(iter(v.runs))
                    if q.get("page") == "last":
                        q = {"page": str(-(-(n if which == "big" else PAGE_SIZE) // PAGE_SIZE))}
                    answer = v.route(f"/run/{name}/rows", q)
                    assert answer is not None and b"<table" in answer[0]
                    return answer

                seconds = timed(lambda: page("big"))
                figure(f"viewer: row table of {n} rows, {label}", seconds,
                       f"the same page of {PAGE_SIZE} rows", timed(lambda: page("small")),
                       goal=f"page under 0.1 s (here {seconds * 1000:.1f} ms)")
        finally:
            for v in viewers.values():
                v.close()
        server = make_server(big)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/run/big/rows?sort=score&dir=desc"
            urllib.request.urlopen(url).read()  # the index is built on the first request
            http = timed(lambda: urllib.request.urlopen(url).read())
            figure(f"viewer: HTTP GET of the {n}-row table (sorted)", http, "CPU unit", cpu_unit(),
                   goal="< 1 CPU unit")
        finally:
            server.shutdown()
            server.server_close()
            server.viewer.close()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
