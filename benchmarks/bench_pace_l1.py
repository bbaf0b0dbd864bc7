"""PACE L1 benchmark: indexing time (bundled repos and a synthetic 100k-line repo) and evidence-package
size vs full-diff size in tokens (~4 characters per token).

Run: make bench   (or .venv/bin/python benchmarks/bench_pace_l1.py)
"""

from __future__ import annotations

import ast
import random
import sys
import tempfile
import time
from pathlib import Path

from reqbench.core.bundled import bundled_suite
from reqbench.protocols.pace.case import load_case
from reqbench.protocols.pace.l1.callgraph import RepoIndex
from reqbench.protocols.pace.score import Scorer

sys.path.insert(0, str(Path(__file__).parent))
from ratios import figure  # noqa: E402

CASES = [bundled_suite("pace/billflow-credit-notes"), bundled_suite("pace/cachetools-slru")]


def tokens(text: str) -> int:
    return len(text) // 4


def synthetic_repo(root: Path, lines: int = 100_000) -> int:
    rng = random.Random(7)
    written, n = 0, 0
    while written < lines:
        mod = root / f"pkg{n // 50}" / f"mod{n}.py"
        mod.parent.mkdir(parents=True, exist_ok=True)
        body = [f"from pkg{max(0, n // 50 - 1)}.mod{max(0, n - 1)} import helper_{max(0, n - 1)}_0", ""]
        for f in range(20):
            body += [
                f"def helper_{n}_{f}(x, y=1):",
                f"    z = helper_{n}_{(f + 1) % 20}(x) if x > {f} else y",
                *[f"    z = z + {rng.randint(1, 9)} * x" for _ in range(6)],
                "    return z",
                "",
            ]
        body += [
            f"class Service{n}:",
            "    def run(self, x):",
            f"        return helper_{n}_0(x)",
            "",
            f"REGISTRY = {{'s{n}': Service{n}}}",
            "",
        ]
        text = "\n".join(body)
        mod.write_text(text)
        written += text.count("\n") + 1
        n += 1
    return written


def main() -> None:
    for case_dir in CASES:
        case = load_case(case_dir)
        try:
            scorer = Scorer(case)
            base = scorer.base
        except Exception as exc:  # noqa: BLE001 - a missing network must not stop the benchmark
            print(f"{case.id}: skipped ({exc})")
            continue
        t = time.perf_counter()
        idx = RepoIndex.build(base)
        t_index = time.perf_counter() - t
        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            loc = scorer.localize(case.reference_patch, Path(tmp) / "t")
            pkgs = [loc.package(p) for p in case.points]
            t_loc = time.perf_counter() - t
        per_point = sum(tokens(p.render()) for p in pkgs) / len(pkgs)
        diff_tokens = tokens(case.reference_patch)
        print(
            f"{case.id}: {len(idx.files)} files, {len(idx.decls())} declarations indexed in {t_index:.3f}s; "
            f"reference localised for {len(pkgs)} points in {t_loc:.3f}s"
        )
        print(
            f"  evidence package (mean per point) {per_point:.0f} tokens vs full diff {diff_tokens} tokens "
            f"(ratio {per_point / diff_tokens:.2f})"
        )
    with tempfile.TemporaryDirectory() as tmp:
        lines = synthetic_repo(Path(tmp))
        t = time.perf_counter()
        idx = RepoIndex.build(Path(tmp))
        dt = time.perf_counter() - t
        t = time.perf_counter()
        for path in sorted(Path(tmp).rglob("*.py")):
            ast.parse(path.read_text())
        parse = time.perf_counter() - t
        print(
            f"synthetic: {lines} lines, {len(idx.files)} files, {len(idx.decls())} declarations, "
            f"{len(idx.bindings())} edges indexed in {dt:.2f}s ({lines / dt:,.0f} lines/s)"
        )
        figure("pace L1: index 100k lines", dt, "ast.parse of the same files", parse, "<= 10 s absolute")


if __name__ == "__main__":
    main()
