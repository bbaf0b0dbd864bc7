"""The floor loop of `bench_floor.py`: the bundled suite's rows done with nothing around them, run as its
own process (standard library only: it imports nothing of reqbench).

Each row: copy the family's base repository, apply its reference patch with ``git apply``, run pytest over
the hidden tests with the verifier's interpreter and flags -- plainly, or (``--sandbox FILE``) under the
bubblewrap command line the file holds, and where the file names cgroup parents, with the tree's caps as a
row's check has them: a fresh group below each parent, made before the launch, joined by one ``/bin/sh``
exec in front of bubblewrap, and removed after it by one background thread (removing a memory group takes
the kernel ~10 ms: the rows do not wait for it; the command does, at its end).

    python benchmarks/floor_loop.py ROWS.json --concurrency N --report OUT.json [--sandbox SANDBOX.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

FLOOR_INI = "[pytest]\n"


def floor_row(row: dict[str, str], work: Path, sandbox: dict[str, list[str]] | None = None,
              remover: Executor | None = None) -> float:
    """Copy, apply, pytest (under `sandbox`'s bubblewrap command line, in fresh groups below its cgroup
    parents removed by `remover`, when given): one row of the floor; returns its wall seconds."""
    started = time.perf_counter()
    tree = work / row["key"].replace("|", "_")
    shutil.copytree(row["base"], tree)
    subprocess.run(["git", "apply", "--whitespace=nowarn", row["patch"]], cwd=tree, check=True)
    env = {**os.environ, "PYTHONPATH": str(tree / "src"), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
           "PYTHONDONTWRITEBYTECODE": "1"}
    hidden, ini = row["hidden"], str(work / "floor.ini")
    pytest = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", ini, "--rootdir", hidden,
              hidden]
    groups: list[Path] = []
    if sandbox is not None:
        pytest = [*sandbox["prefix"], "--bind", str(tree), str(tree), "--ro-bind", hidden, hidden, "--ro-bind", ini,
                  ini, "--chdir", str(tree), "--", *pytest]
        groups = [Path(parent) / f"reqbench-floor-{uuid.uuid4().hex}" for parent in sandbox.get("cgroups", [])]
        for group in groups:
            group.mkdir()
        if groups:
            joins = " && ".join(f"echo $$ > {group}/cgroup.procs" for group in groups)
            pytest = ["/bin/sh", "-c", joins + ' && exec "$@"', "sh", *pytest]
    proc = subprocess.run(pytest, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    for group in groups:
        if remover is not None:
            remover.submit(remove_group, group)
    if proc.returncode != 0:
        raise SystemExit(f"floor row {row['key']}: pytest exit {proc.returncode}\n{proc.stdout.decode()[-2000:]}")
    shutil.rmtree(tree)
    return time.perf_counter() - started


def remove_group(group: Path) -> None:
    """Remove the emptied cgroup `group`, retrying while the kernel still counts a leaving member."""
    for _ in range(2000):  # the sandbox's init may still be leaving it
        try:
            group.rmdir()
            return
        except OSError:
            time.sleep(0.001)


def floor_loop(rows_file: Path, concurrency: int, report: Path, sandbox_file: Path | None = None) -> None:
    rows = json.loads(rows_file.read_text())
    sandbox = json.loads(sandbox_file.read_text()) if sandbox_file is not None else None
    with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
        work = Path(tmp)
        (work / "floor.ini").write_text(FLOOR_INI)
        with ThreadPoolExecutor(1) as remover, ThreadPoolExecutor(concurrency) as pool:
            seconds = list(pool.map(lambda r: floor_row(r, work, sandbox, remover), rows))
    report.write_text(json.dumps({r["key"]: s for r, s in zip(rows, seconds, strict=True)}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("rows", type=Path)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--report", type=Path, required=True)
    parser.add_argument("--sandbox", type=Path)
    args = parser.parse_args()
    floor_loop(args.rows, args.concurrency, args.report, args.sandbox)
