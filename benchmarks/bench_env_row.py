"""A row in a cached task environment vs the same row on the host (DESIGN §14), side by side.

A row here is what every protocol's row does around its agent: a `command` agent step through
`RowContext.step` (the agent writes its solution) and one ``{pytest}`` check of it with the guard, run by
the real plumbing (`core.execute.environments.attempt_environment`, a thread per row as the runner uses).
In the environment (a venv built once by `ensure_built` holding the harness's own pytest version, so only
the environment differs): the row's overlay of it is mounted for the agent step (where overlays can be
mounted), the check binds the pristine venv read-only and runs the guard from source with the venv's
interpreter. On the host: neither. Rounds alternate the two sides; medians are compared.

Goal: a row in an environment costs at most 10 ms more than on the host. A third side runs the same
environment with byte code compiled into its venv, which separates the cost of a venv installed without
``.pyc`` files (every check then compiles pytest from source, in a tree it cannot write) from the cost of
the environment's binds, overlay and guard.

Each side runs its rows in a worker process of its own, the sides alternated per round; each worker's
CPU time (its processes and every sandbox below it, counted through a cgroup: `cpu_meter`) is printed
beside the wall time, as it moves far less with the machine's load.

    python benchmarks/bench_env_row.py [--rows 6] [--rounds 4]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

AGENT = "printf 'def answer():\\n    return 42\\n' > solution.py"
TEST = "from solution import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"


def one_row(environments: Any, work: Path, n: int) -> float:
    """Seconds of one row (agent step + check) in its own thread."""
    from reqbench.core.agents.base import AgentInputs, Budget
    from reqbench.core.checks import Check, CheckStatus, run_check
    from reqbench.core.execute.environments import attempt_environment
    from reqbench.core.execute.suite import RowContext
    from reqbench.core.execute.types import Row, RunOptions

    took: list[float] = []

    def run() -> None:
        ws, hidden = work / f"ws{n}", work / f"hidden{n}"
        ws.mkdir()
        hidden.mkdir()
        (hidden / "test_hidden.py").write_text(TEST)
        row = Row(f"t{n}", "c", "command")
        started = time.perf_counter()
        with attempt_environment(environments, row, work / f"row{n}") as environment:
            ctx = RowContext(RunOptions(agent="command", agent_options={"template": AGENT}), work / f"row{n}",
                             row, environment)
            step = ctx.step(ws, AgentInputs(prompt="go"), Budget(wall_seconds=60))
            result = run_check(Check(name="t", command="{pytest} -q {hidden}", timeout_seconds=60), ws, hidden)
        took.append(time.perf_counter() - started)
        assert step.completed and result.status is CheckStatus.PASS, (step.detail, result.detail)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return took[0]


def worker(side: str, rows: int, cache: Path) -> None:
    """Run `rows` rows on one side (after one warm-up row); print their wall seconds as JSON."""
    import json

    from reqbench.core.environments import find_built
    from reqbench.core.execute.environments import RunEnvironments

    environments = RunEnvironments()
    if side != "host":
        built = find_built(side, cache=cache)
        compiled = cache.parent / "compiled"
        if built is None:  # the byte-code copy: its key names the original
            built = find_built(side.removesuffix("+pyc"), cache=cache)
            assert built is not None
            built = with_byte_code(built, compiled, copy=False)
        environments = RunEnvironments(default=built)
    work = Path(tempfile.mkdtemp(prefix="bench-env-row-"))
    one_row(environments, work, 0)
    print(json.dumps([one_row(environments, work, n) for n in range(1, rows + 1)]))


def main() -> None:
    import json
    import subprocess

    from cpu_meter import CpuMeter, meter_closed

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=6, help="rows per worker process")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        worker(args.worker, args.rows, Path(args.cache))
        return

    import pytest

    from reqbench.core.environments import ensure_built, load_environment

    work = Path(tempfile.mkdtemp(prefix="bench-env-row-"))
    block = {"python": {"interpreter": "host", "requirements": [f"pytest=={pytest.__version__}"]}}
    spec = load_environment(block, origin="bench", base_dir=work)
    built = ensure_built(spec, work, cache=work / "cache")
    with_byte_code(built, work / "compiled")
    sides = {"host": "host", "environment": built.key, "environment with byte code": built.key + "+pyc"}
    wall: dict[str, list[float]] = {name: [] for name in sides}
    cpu: dict[str, list[float]] = {name: [] for name in sides}
    with meter_closed(CpuMeter.make()) as meter:
        for n in range(args.rounds):
            order = list(sides.items()) if n % 2 else list(reversed(sides.items()))
            for name, side in order:
                argv = [sys.executable, __file__, "--worker", side, "--rows", str(args.rows),
                        "--cache", str(work / "cache")]
                if meter is not None:
                    meter.take()
                out = subprocess.run([*(meter.prefix() if meter else []), *argv], capture_output=True, text=True,
                                     check=True).stdout
                wall[name] += json.loads(out.strip().splitlines()[-1])
                if meter is not None:
                    cpu[name].append(meter.take() / (args.rows + 1))
    host_ms = statistics.median(wall["host"]) * 1000
    for name in ("environment", "environment with byte code"):
        env_ms = statistics.median(wall[name]) * 1000
        print(f"row in an {name}: wall {env_ms:.1f} ms vs {host_ms:.1f} ms on the host "
              f"({env_ms - host_ms:+.1f} ms; goal <= +10 ms)")
        if cpu[name] and cpu["host"]:
            env_cpu, host_cpu = statistics.median(cpu[name]) * 1000, statistics.median(cpu["host"]) * 1000
            print(f"  CPU per row (worker process and every sandbox, start-up shared out): {env_cpu:.1f} ms vs "
                  f"{host_cpu:.1f} ms ({env_cpu - host_cpu:+.1f} ms)")
        figure(f"row in a cached {name}", env_ms, "the same row on the host", host_ms, "<= host + 10 ms", "ms")


def with_byte_code(built: Any, folder: Path, copy: bool = True) -> Any:
    """A copy of `built` whose venv also holds byte code (compiled by its interpreter), as a builder that
    compiles at install time would leave it: separates what the environment's missing ``.pyc`` files cost
    (every check compiles pytest from source in a tree it cannot write) from what binding it costs.
    `copy=False`: the copy made before, in `folder`."""
    import dataclasses
    import shutil
    import subprocess

    if copy:
        shutil.copytree(built.path, folder, symlinks=True)
        venv = folder / "python"
        subprocess.run([str(venv / "bin" / "python"), "-m", "compileall", "-q", str(venv / "lib")], check=False,
                       stdout=subprocess.DEVNULL)
    binds = tuple((folder / Path(h).relative_to(built.path) if Path(h).is_relative_to(built.path) else h, i)
                  for h, i in built.binds)
    return dataclasses.replace(built, path=folder, binds=binds)


if __name__ == "__main__":
    main()
