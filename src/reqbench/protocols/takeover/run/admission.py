"""Admission of delivery targets (ReqMemBench §3.3, appendix B.3, C.3).

A delivery target is admitted only when, on fresh copies of its initial repository:

* the initial repository itself is Build PASS, Target FAIL, Regression PASS (usable, change not done);
* the reference solution passes all three gates;
* every negative patch (a plausible partial solution) applies cleanly and fails the target gate (only
  build and target gates run for it: its regression gate decides nothing).

Each of these *variants* is independent of the others, so `suite_admission_problems` runs all variants of
all targets side by side (one thread per core; the checks are subprocesses), reports each as it ends
(`core.library_progress`, shown by ``reqbench validate``), and remembers each admitted variant under its content
address (`core.validation_cache`, ``$REQBENCH_CACHE/takeover-admission/``, hidden from agents and checks). Only
admitted variants are cached, and never a verdict reached through a harness error (a check that could
not run).
`admission_problems` returns one sentence per violation; [] means admitted.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench import __version__
from reqbench.core import tempdirs
from reqbench.core.errors import ReqbenchError
from reqbench.core.hashing import sha256_bytes, sha256_json
from reqbench.core.library_progress import steps
from reqbench.core.validation_cache import ValidationCache
from reqbench.core.workspace import apply_patch, materialize, tree_hash

DECIDED = {"PASS", "FAIL", "SKIPPED"}
"""Gate statuses that are a verdict about the code; anything else (a harness error) is not cached."""


@dataclass(frozen=True)
class Variant:
    target_id: str
    label: str
    patch: str | None
    expected: dict[str, str]


def variants(ctx: Any, target_id: str) -> list[Variant]:
    d = ctx.delivery(target_id)
    out = [Variant(target_id, "initial repository", None, {"build": "PASS", "target": "FAIL", "regression": "PASS"}),
           Variant(target_id, "reference solution", d.reference_patch,
                   {"build": "PASS", "target": "PASS", "regression": "PASS"})]
    return out + [Variant(target_id, f"negative patch {n}", n, {"target": "FAIL"}) for n in d.negative_patches]


def check_variant(ctx: Any, variant: Variant, scratch: Path) -> tuple[list[str], bool]:
    """Problems of one variant on a fresh copy of the initial repository, and whether the verdict may be
    cached (every gate decided), in the target's task environment."""
    from reqbench.core.execute.environments import task_checks

    d = ctx.delivery(variant.target_id)
    with task_checks(d.environment or ctx.suite.environment, str(ctx.suite_dir / "suite.yaml"), ctx.suite_dir):
        return _check_variant(ctx, variant, scratch)


def _check_variant(ctx: Any, variant: Variant, scratch: Path) -> tuple[list[str], bool]:
    from reqbench.protocols.takeover.run.coding import run_gates

    where = f"suite.yaml: delivery target {variant.target_id}"
    ws = materialize(ctx.initial_repository(variant.target_id), scratch)
    if variant.patch is not None:
        text = (ctx.suite_dir / variant.patch).read_text(encoding="utf-8")
        if not text.strip():
            return [f"{where}: {variant.label} is empty"], True
        try:
            apply_patch(ws.path, text)
        except ReqbenchError as exc:
            return [f"{where}: {variant.label} does not apply to the initial repository ({exc})"], True
    statuses = (_target_gate_only(ctx, variant.target_id, ws.path) if set(variant.expected) == {"target"}
                else run_gates(ctx, variant.target_id, ws.path)[0])
    wrong = {g: s for g, s in statuses.items() if g in variant.expected and s != variant.expected[g]}
    problems = []
    if wrong:
        got = ", ".join(f"{g} {s}" for g, s in wrong.items())
        want = ", ".join(f"{g} {variant.expected[g]}" for g in wrong)
        problems.append(f"{where}: {variant.label} must give {want} but gave {got}")
    return problems, all(s in DECIDED for s in statuses.values())


def _target_gate_only(ctx: Any, target_id: str, workspace: Path) -> dict[str, str]:
    """Build, then the target gate (a negative patch is judged on the target gate alone, so its regression
    gate, a full test run, is not worth running)."""
    from reqbench.core.checks import run_check
    from reqbench.protocols.takeover.delivery.gates import read_gate
    from reqbench.protocols.takeover.run.coding import gate_checks

    checks, hidden = gate_checks(ctx, target_id), ctx.hidden_dir(target_id)

    def status(name: str) -> str:
        return read_gate(run_check(checks[name], workspace, hidden), checks[name].runs_pytest).status

    build = status("build")
    return {"build": build, "target": status("target") if build == "PASS" else "SKIPPED"}


def admission_problems(ctx, target_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    """Every variant of one target, one after the other, uncached."""
    with tempdirs.folder("admission") as tmp:
        return [p for i, v in enumerate(variants(ctx, target_id))
                for p in check_variant(ctx, v, Path(tmp) / f"v{i}")[0]]


def target_key(ctx, target_id: str) -> str:  # type: ignore[no-untyped-def]
    """Content address of everything admission of one target depends on (code, patches, checks)."""
    from reqbench.protocols.takeover.delivery.initial import initial_patches, snapshot_key
    from reqbench.protocols.takeover.suite_file import repository_tree

    d = ctx.delivery(target_id)
    if d.initial_repository is not None:  # the snapshot is the whole starting point
        repo, patches = "snapshot:" + snapshot_key(ctx.suite_dir, d), [d.reference_patch, *d.negative_patches]
    else:
        repo = tree_hash(repository_tree(ctx.suite_dir, ctx.suite))
        patches = [*initial_patches(ctx.suite_dir, ctx.suite, target_id), d.reference_patch,
                   *d.negative_patches]
    return sha256_json({
        "repo": repo,
        "hidden": tree_hash(ctx.suite_dir / d.hidden),
        "patches": [[p, sha256_bytes((ctx.suite_dir / p).read_bytes())] for p in patches],
        "checks": ctx.suite.checks_for(d).model_dump(),
        **({"environment": d.environment or ctx.suite.environment}
           if (d.environment or ctx.suite.environment) else {}),
    })


def variant_key(target: str, variant: Variant) -> str:
    """The variant's content address: its target's, the variant, and the interpreter its checks run with
    (``{python}``), so a verdict reached with another toolchain is never reused."""
    return sha256_json({"target": target, "variant": variant.label, "patch": variant.patch,
                        "expected": variant.expected, "reqbench": __version__, "python": sys.executable})


def suite_admission_problems(ctx, workers: int | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    """Admission of every delivery target: all variants in parallel, each verdict cached by content."""
    jobs = [v for d in ctx.suite.delivery for v in variants(ctx, d.target_id)]
    keys = {d.target_id: target_key(ctx, d.target_id) for d in ctx.suite.delivery}
    verdicts = ValidationCache("takeover-admission")
    progress = steps("admission", len(jobs), f"checks of {len(keys)} delivery targets (build, target, regression "
                     "gates on fresh copies; verdicts cached by content)")
    initial_locks = {tid: threading.Lock() for tid in keys}

    def admit(index: int, variant: Variant, scratch: Path) -> list[str]:
        key = variant_key(keys[variant.target_id], variant)
        if verdicts.passed(key):
            progress.advance(f"{variant.target_id} {variant.label}", None)
            return []
        started = time.perf_counter()
        with initial_locks[variant.target_id]:  # variants of one target share its initial repository
            ctx.initial_repository(variant.target_id)
        problems, decided = check_variant(ctx, variant, scratch / f"v{index}")
        if decided and not problems:
            verdicts.record_pass(key)
        progress.advance(f"{variant.target_id} {variant.label}" + (" ✗" if problems else " ✓"),
                         time.perf_counter() - started)
        return problems

    workers = workers or max(1, min(len(jobs), os.cpu_count() or 1))
    with tempdirs.folder("admission") as tmp, ThreadPoolExecutor(max_workers=workers) as pool:
        found = pool.map(admit, range(len(jobs)), jobs, [Path(tmp)] * len(jobs))
        return [p for problems in found for p in problems]
