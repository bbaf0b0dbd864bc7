"""Workspace materialisation speed: `materialize` vs `shutil.copytree` on a synthetic 5,000-file repo.

All run side by side in one process, alternating, on the same source; the median of several runs is
reported with the ratio: `shutil.copytree`, `materialize` as a copy, and `materialize(overlay=True)` (an
overlay mount in this thread's namespace, where `core.workspace.overlay` is available). The source tree
hash is re-checked after every run (no write reaches it). Also times `diff()` after a one-file edit on
both kinds of workspace, and the removal of each (``close`` vs ``shutil.rmtree`` of the copytree copy).
Last, the patch step itself after that edit, in process vs git side by side (`patch_figures`): the
object store's diff of the changed entries (`textdiff` vs a pack and ``git diff-tree``), the same for an
edit only git places (the second time, from `diffmemo`), and applying the patch (`textapply` vs ``git
apply``), each alternated many times on the same data.

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

from reqbench.core.workspace import apply_patch, diffmemo, materialize, tree_hash
from reqbench.core.workspace.changes import changed_refs
from reqbench.core.workspace.limits import TreeMeter
from reqbench.core.workspace.objects import ObjectStore
from reqbench.core.workspace.overlay import overlay_available

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
    kinds = ["copy", "overlay"] if overlay_available() else ["copy"]
    with tempfile.TemporaryDirectory(prefix="reqbench-bench-") as tmp:
        src = Path(tmp) / "src"
        make_repo(src, args.files)
        before = tree_hash(src)
        times: dict[str, list[float]] = {"copytree": [], "rmtree": [], "stat walk": []}
        for run in range(args.runs):
            dest = Path(tmp) / f"copytree-{run}"
            start = time.perf_counter()
            shutil.copytree(src, dest, symlinks=True)
            times["copytree"].append(time.perf_counter() - start)
            for kind in kinds:
                start = time.perf_counter()
                ws = materialize(src, Path(tmp) / f"{kind}-{run}", overlay=kind == "overlay")
                times.setdefault(f"materialize {kind}", []).append(time.perf_counter() - start)
                assert ws.overlay is (kind == "overlay")
                (ws.path / "pkg0" / "mod0" / "file0.py").write_text("changed = True\n")
                start = time.perf_counter()
                patch = ws.diff()
                times.setdefault(f"diff {kind}", []).append(time.perf_counter() - start)
                assert "changed = True" in patch and patch.count("diff --git") == 1
                start = time.perf_counter()
                ws.close()
                times.setdefault(f"close {kind}", []).append(time.perf_counter() - start)
                assert tree_hash(src) == before, "source changed"
            start = time.perf_counter()
            for directory, _, names in os.walk(dest):
                for name in names:
                    os.lstat(os.path.join(directory, name))
            times["stat walk"].append(time.perf_counter() - start)
            start = time.perf_counter()
            shutil.rmtree(dest)
            times["rmtree"].append(time.perf_counter() - start)
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"files: {args.files}, runs: {args.runs} (median seconds); source tree hash unchanged after every run")
        for name, value in med.items():
            print(f"{name:20}: {value:.4f}")
        for kind in kinds:
            goal = "<= 0.1 where overlay/reflink exist" if kind == "overlay" else ""
            figure(f"workspace: materialize {args.files} files ({kind})", med[f"materialize {kind}"],
                   "shutil.copytree", med["copytree"], goal)
            figure(f"workspace: close ({kind})", med[f"close {kind}"], "shutil.rmtree of the copytree copy",
                   med["rmtree"])
            figure(f"workspace: diff after one edit ({kind})", med[f"diff {kind}"], "lstat of every file",
                   med["stat walk"], "<= 50 ms absolute")
        patch_figures(src, Path(tmp))


def patch_figures(src: Path, tmp: Path, runs: int = 200) -> None:
    """In-process vs git: the diff of one edited file, and applying that patch (medians of `runs` each,
    alternated in one loop)."""
    ws = materialize(src, tmp / "patch-ws")
    target = ws.path / "pkg0" / "mod0" / "file0.py"
    original = target.read_text()
    target.write_text(original.replace("value_3 = 3\n", "value_3 = 'three'\n"))
    base, new = changed_refs(ws._record, ws.path, TreeMeter())  # type: ignore[arg-type]
    store = ObjectStore(tmp / "patch-store" / "objects.git")
    patch = store.diff(base, new)
    assert patch == store.diff(base, new, in_process=False), "in-process diff differs from git's"
    tree = tmp / "patch-tree"
    (tree / "pkg0" / "mod0").mkdir(parents=True)
    copy = tree / "pkg0" / "mod0" / "file0.py"
    times: dict[str, list[float]] = {"diff in process": [], "diff git": [], "apply in process": [],
                                     "apply git": []}
    for _ in range(runs):
        for in_process in (True, False):
            kind = "in process" if in_process else "git"
            start = time.perf_counter()
            store.diff(base, new, in_process=in_process)
            times[f"diff {kind}"].append(time.perf_counter() - start)
            copy.write_text(original)
            start = time.perf_counter()
            apply_patch(tree, patch, in_process=in_process)
            times[f"apply {kind}"].append(time.perf_counter() - start)
            assert copy.read_text() == target.read_text()
    # an edit git must place itself (a repeated line can slide): computed by git once, then remembered
    target.write_text(original.replace("value_5 = 5\n", "value_5 = 5\nvalue_5 = 5\n"))
    base, new = changed_refs(ws._record, ws.path, TreeMeter())  # type: ignore[arg-type]
    diffmemo.clear()
    assert store.diff(base, new) == store.diff(base, new, in_process=False)
    times.update({"diff remembered": [], "diff git again": []})
    for _ in range(runs):
        for in_process in (True, False):
            start = time.perf_counter()
            store.diff(base, new, in_process=in_process)
            times["diff remembered" if in_process else "diff git again"].append(time.perf_counter() - start)
    ws.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    figure("workspace: diff of an edit git places itself, second time (remembered)", med["diff remembered"],
           "the same diff by git", med["diff git again"])
    figure("workspace: diff of one edited file, in process", med["diff in process"],
           "the same diff by git (pack + git diff-tree)", med["diff git"])
    figure("workspace: apply that patch, in process", med["apply in process"], "git apply", med["apply git"])


if __name__ == "__main__":
    main()
