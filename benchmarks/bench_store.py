"""Run store throughput: recording attempts (one transaction each, synchronous=FULL) and reading outcomes.

Durability costs fsyncs: each new artifact blob is fsynced before its rename and each commit fsyncs the WAL,
so an attempt costs about (new blobs + 1) fsync latencies of the disk (printed as a baseline). Target: under
50 ms per attempt on an ordinary disk (negligible next to a row, which takes seconds to minutes), and
`outcomes()` under a second for 2,000 rows.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.store import RunMeta, RunStore, utc_now

sys.path.insert(0, str(Path(__file__).parent))
from ratios import cpu_unit, figure  # noqa: E402


def fsync_ms(tmp: Path, k: int = 50) -> float:
    t = time.perf_counter()
    for i in range(k):
        fd = os.open(tmp / f"probe{i}", os.O_WRONLY | os.O_CREAT)
        os.write(fd, b"x")
        os.fsync(fd)
        os.close(fd)
    return (time.perf_counter() - t) / k * 1000


def main(n: int = 2000) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fsync = fsync_ms(Path(tmp))
        print(f"disk baseline: {fsync:.2f} ms per fsync")
        meta = RunMeta(suite_path="/suite", protocol="bench", options={}, created=utc_now(),
                       reqbench_version="0")
        store = RunStore.create(Path(tmp) / "run", meta)
        rows = [Row(f"t{i}", "C1", "agent", 0) for i in range(n)]
        t0 = time.perf_counter()
        store.add_plan(rows)
        t1 = time.perf_counter()
        for i, row in enumerate(rows):
            store.record_attempt(row, RowOutcome(
                RowStatus.SCORED, result={"scores": {"f1": i / n}, "checks": {"build": "PASS"}},
                artifacts={"patch": f"patch {i}".encode(), "transcript": b"shared transcript"}))
        t2 = time.perf_counter()
        outcomes = store.outcomes()
        t3 = time.perf_counter()
        store.close()
    assert len(outcomes) == n
    print(f"add_plan({n}): {(t1 - t0) * 1000:.1f} ms")
    print(f"record_attempt: {(t2 - t1) / n * 1000:.2f} ms per attempt ({n} attempts)")
    print(f"outcomes() of {n} rows: {(t3 - t2) * 1000:.1f} ms")
    figure("store: record_attempt", (t2 - t1) / n * 1000, "one fsync", fsync, unit="ms")
    figure(f"store: outcomes() of {n} rows", t3 - t2, "CPU unit", cpu_unit())


if __name__ == "__main__":
    main()
