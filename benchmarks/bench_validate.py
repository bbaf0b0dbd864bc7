"""`reqbench validate` of the bundled takeover suite: admission with an empty cache, variants checked one
at a time (workers=1, how admission ran target by target before) vs side by side (one per core), and
again with the verdicts cached. Goal: <= 15 s with an empty cache on the 2-core machine.

    python benchmarks/bench_validate.py
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

from reqbench.core.bundled import bundled_suite  # noqa: E402
from reqbench.protocols.takeover.run.admission import suite_admission_problems  # noqa: E402
from reqbench.protocols.takeover.run.context import SuiteContext  # noqa: E402
from reqbench.protocols.takeover.suite import PROTOCOL  # noqa: E402


def admission_seconds(cache: Path, workers: int) -> float:
    os.environ["REQBENCH_CACHE"] = str(cache)
    with tempfile.TemporaryDirectory() as work:
        start = time.perf_counter()
        ctx = SuiteContext.load(bundled_suite("takeover"), Path(work))
        assert suite_admission_problems(ctx, workers=workers) == []
        return time.perf_counter() - start


def main() -> None:
    previous = os.environ.get("REQBENCH_CACHE")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-validate-") as tmp:
            serial = admission_seconds(Path(tmp) / "serial", 1)
            parallel = admission_seconds(Path(tmp) / "parallel", os.cpu_count() or 1)
            start = time.perf_counter()
            assert PROTOCOL.validate(bundled_suite("takeover")) == []  # whole validate, verdicts cached
            cached = time.perf_counter() - start
    finally:
        if previous is None:
            os.environ.pop("REQBENCH_CACHE", None)
        else:
            os.environ["REQBENCH_CACHE"] = previous
    print(f"admission, empty cache: one at a time {serial:.1f}s; side by side ({os.cpu_count()} workers) "
          f"{parallel:.1f}s; validate with cached verdicts {cached:.2f}s")
    figure("validate takeover: admission, empty cache, parallel", parallel, "one variant at a time", serial,
           "<= 15 s absolute")
    figure("validate takeover: whole validate, cached verdicts", cached, "admission with an empty cache", parallel)


if __name__ == "__main__":
    main()
