"""Sandbox start-up: what one sandboxed launch and one check cost next to a bare process start.

Side by side, interleaved, medians over `--launches` rounds:

* ``run_sandboxed`` of ``true`` (argv list, and the string ``/usr/bin/true``, which starts without a
  shell) vs ``subprocess.run(["/bin/true"])``, and that string vs the same through ``/bin/sh -c``;
* a bare ``bwrap --unshare-all ... true`` (the floor of any bubblewrap launch) vs the same baseline, so
  the launcher's own share (cgroup join, ``prlimit``, view, scratch, drains) is the difference;
* ``launch.plan`` alone (view, environment, scratch folders; no process), per launch;
* a plain check (``exit 0``) with a 50-file hidden directory vs ``run_sandboxed`` of ``true``: what a
  check adds around its process (scratch, snapshot, hidden tests, protected paths).

    python benchmarks/bench_sandbox.py [--launches N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from reqbench.core.checks import Check, run_check
from reqbench.core.sandbox import SandboxOptions, available_isolation, run_sandboxed
from reqbench.core.sandbox.launch import LaunchPlan, plan

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

BARE_BWRAP = ["bwrap", "--die-with-parent", "--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin",
              "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--proc", "/proc",
              "--dev", "/dev", "true"]


def _median_ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def side_by_side(rounds: int, **steps: Callable[[], object]) -> dict[str, float]:
    """Median milliseconds of each step, the steps interleaved round by round in a shuffled order (load
    and whatever one step leaves for the next hit all alike)."""
    times: dict[str, list[float]] = {name: [] for name in steps}
    for step in steps.values():  # warm caches, imports and the interpreter's own paths once
        step()
    order, shuffle = list(steps), random.Random(16).shuffle
    for _ in range(rounds):
        shuffle(order)
        for name in order:
            step = steps[name]
            started = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - started)
    return {name: _median_ms(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--launches", type=int, default=40)
    args = parser.parse_args()
    print(f"isolation: {available_isolation()}")
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as tmp_name:
        tmp = Path(tmp_name)
        ws, hidden = tmp / "ws", tmp / "hidden"
        ws.mkdir()
        (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
        hidden.mkdir()
        for i in range(50):
            (hidden / f"test_{i:02d}.py").write_text(f"def test_{i}():\n    assert True\n")
        scratch_count = iter(range(10**9))

        def plan_only() -> None:
            scratch = tmp / f"plan-{next(scratch_count)}"
            scratch.mkdir()
            launch = plan("true", ws, SandboxOptions(timeout=30), scratch)
            if isinstance(launch, LaunchPlan):
                launch.release()

        bare: dict[str, Callable[[], object]] = {}
        if available_isolation() == "bwrap":
            bare["bare bwrap"] = lambda: subprocess.run(BARE_BWRAP, check=True)
        ms = side_by_side(
            args.launches,
            process=lambda: subprocess.run(["/bin/true"], check=True),
            sandboxed=lambda: run_sandboxed(["true"], ws, timeout=30),
            sandboxed_string=lambda: run_sandboxed("/usr/bin/true", ws, timeout=30),
            sandboxed_shell=lambda: run_sandboxed("/usr/bin/true;", ws, timeout=30),  # ";" needs the shell
            check=lambda: run_check(Check(name="c", command="exit 0", timeout_seconds=30), ws, hidden),
            plan=plan_only,
            **bare)
    for name, value in ms.items():
        print(f"{name:16s} {value:8.2f} ms per launch")
    figure("sandbox: run_sandboxed(['true'])", ms["sandboxed"], "subprocess.run(['/bin/true'])", ms["process"],
           unit="ms")
    figure("sandbox: run_sandboxed('/usr/bin/true') (string)", ms["sandboxed_string"],
           "subprocess.run(['/bin/true'])", ms["process"], unit="ms")
    figure("sandbox: string started without the shell", ms["sandboxed_string"], "the same through /bin/sh -c",
           ms["sandboxed_shell"], unit="ms")
    if "bare bwrap" in ms:
        figure("sandbox: run_sandboxed(['true'])", ms["sandboxed"], "bare bwrap true", ms["bare bwrap"], unit="ms")
    figure("sandbox: launch.plan per launch", ms["plan"], "subprocess.run(['/bin/true'])", ms["process"], unit="ms")
    figure("sandbox: plain check with a 50-file hidden dir", ms["check"], "run_sandboxed(['true'])",
           ms["sandboxed"], unit="ms")


if __name__ == "__main__":
    main()
