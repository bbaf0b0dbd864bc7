"""Rows in flight across repeats: the most attempts running at once, from their recorded start and end times.

``reqbench run demo:pace --agent command --agent-opt template='sleep 1' --repeats 3 --concurrency 4``: the demo
suite has 3 tasks, so with a barrier between repeats at most 3 rows run at once whatever the concurrency; a
protocol without one fills the 4 slots across repeats. Printed per side: the most attempts in flight
(counted from the ``attempts`` table's ``started``/``finished``, never from wall time), as a share of
``--concurrency``, and the span from the first start to the last end.

    python benchmarks/bench_repeats_in_flight.py [--suite demo:pace] [--concurrency 4] [--baseline OTHER/src]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402


def spans(run_dir: Path) -> list[tuple[datetime, datetime]]:
    conn = sqlite3.connect(run_dir / "run.sqlite")
    rows = conn.execute("SELECT started, finished FROM attempts WHERE kind = 'run'").fetchall()
    conn.close()
    return [(datetime.fromisoformat(s), datetime.fromisoformat(e)) for s, e in rows]


def in_flight(run: list[tuple[datetime, datetime]]) -> int:
    return max(sum(start <= t < end for start, end in run) for t, _ in run)


def measure(src: Path, suite: str, concurrency: int, repeats: int) -> tuple[int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(src)}
        subprocess.run([sys.executable, "-m", "reqbench.cli.main", "run", suite, "--agent", "command",
                        "--agent-opt", "template=sleep 1", "--repeats", str(repeats), "--concurrency",
                        str(concurrency), "--quiet", "--out", str(Path(tmp) / "run")],
                       env=env, cwd=tmp, check=True, capture_output=True)
        run = spans(Path(tmp) / "run")
    return in_flight(run), (max(e for _, e in run) - min(s for s, _ in run)).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="demo:pace")
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another reqbench source tree to measure beside this one")
    args = parser.parse_args()
    sides = [("this tree", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    for name, src in sides:
        most, span = measure(src, args.suite, args.concurrency, args.repeats)
        print(f"{name}: {args.suite}, --repeats {args.repeats} --concurrency {args.concurrency}: at most {most} "
              f"rows in flight, first start to last end {span:.1f} s")
        figure(f"rows in flight / --concurrency ({name})", most, "--concurrency", args.concurrency,
               goal="1" if name == "this tree" else "", unit="rows")


if __name__ == "__main__":
    main()
