"""Workspace materialisation speed: `materialize` vs `shutil.copytree` on a synthetic 5,000-file repo.

Both run side by side in one process, alternating, on the same source; the median of several runs is
reported with the ratio. `materialize` must not be slower than copytree while guaranteeing integrity
(real copies, no hard links: the source tree hash is re-checked after every run). Also times `diff()`
after a small edit, since every row computes one.

    python benchmarks/bench_workspace.py [--files 5000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from reqbench.core.workspace import materialize, tree_hash

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402


def make_repo(root: Path, files: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    for i in range(files):
        directory = root / f"pkg{i % 40}" / f"mod{i % 9}"
        directory.mkdir(parents=True, exist_ok=True)
        lines = rng.randint(5, 120)
        (directory / f"file{i}.py").write_text("".join(f"value_{j} = {j}\n" for j in range(lines)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="reqbench-bench-") as tmp:
        src = Path(tmp) / "src"
        make_repo(src, args.files)
        before = tree_hash(src)
        times: dict[str, list[float]] = {"copytree": [], "materialize": [], "diff": [], "stat walk": []}
        for run in range(args.runs):
            for name in ("copytree", "materialize"):
                dest = Path(tmp) / f"{name}-{run}"
                start = time.perf_counter()
                if name == "copytree":
                    shutil.copytree(src, dest, symlinks=True)
                else:
                    ws = materialize(src, dest)
                times[name].append(time.perf_counter() - start)
            (ws.path / "pkg0" / "mod0" / "file0.py").write_text("changed = True\n")
            start = time.perf_counter()
            patch = ws.diff()
            times["diff"].append(time.perf_counter() - start)
            start = time.perf_counter()
            for directory, _, names in os.walk(ws.path):
                for name in names:
                    os.lstat(os.path.join(directory, name))
            times["stat walk"].append(time.perf_counter() - start)
            assert "changed = True" in patch
            assert tree_hash(src) == before, "source changed"
            for name in ("copytree", "materialize"):
                shutil.rmtree(Path(tmp) / f"{name}-{run}")
            ws.close()
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"files: {args.files}, runs: {args.runs} (median seconds)")
        print(f"shutil.copytree : {med['copytree']:.3f}")
        print(f"materialize     : {med['materialize']:.3f}")
        print(f"ratio materialize/copytree: {med['materialize'] / med['copytree']:.2f}")
        print(f"diff after one edit: {med['diff']:.3f}")
        figure(f"workspace: materialize {args.files} files", med["materialize"], "shutil.copytree", med["copytree"],
               "<= 0.1 where overlay/reflink exist")
        figure("workspace: diff after one edit", med["diff"], "lstat of every file", med["stat walk"],
               "<= 50 ms absolute")


if __name__ == "__main__":
    main()
