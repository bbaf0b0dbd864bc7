"""Admission of delivery targets (ReqMemBench §3.3, appendix B.3, C.3).

A delivery target is admitted only when, on fresh copies of its initial repository:

* the initial repository itself is Build PASS, Target FAIL, Regression PASS (usable, change not done);
* the reference solution passes all three gates;
* every negative patch (a plausible partial solution) applies cleanly and fails the target gate.

`admission_problems` returns one sentence per violation; [] means admitted.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from reqbench.core.errors import ReqbenchError
from reqbench.core.workspace import apply_patch, materialize


def admission_problems(ctx, target_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    from reqbench.protocols.takeover.run.coding import run_gates

    d = ctx.delivery(target_id)
    where = f"suite.yaml: delivery target {target_id}"
    problems: list[str] = []
    variants: list[tuple[str, str | None, dict[str, str]]] = [
        ("initial repository", None, {"build": "PASS", "target": "FAIL", "regression": "PASS"}),
        ("reference solution", d.reference_patch, {"build": "PASS", "target": "PASS", "regression": "PASS"}),
    ]
    variants += [(f"negative patch {n}", n, {"target": "FAIL"}) for n in d.negative_patches]
    with tempfile.TemporaryDirectory(prefix="admission-") as tmp:
        for i, (label, patch, expected) in enumerate(variants):
            ws = materialize(ctx.initial_repository(target_id), Path(tmp) / f"v{i}")
            if patch is not None:
                text = (ctx.suite_dir / patch).read_text(encoding="utf-8")
                if not text.strip():
                    problems.append(f"{where}: {label} is empty")
                    continue
                try:
                    apply_patch(ws.path, text)
                except ReqbenchError as exc:
                    problems.append(f"{where}: {label} does not apply to the initial repository ({exc})")
                    continue
            statuses, _ = run_gates(ctx, target_id, ws.path)
            wrong = {g: s for g, s in statuses.items() if g in expected and s != expected[g]}
            if wrong:
                got = ", ".join(f"{g} {s}" for g, s in wrong.items())
                want = ", ".join(f"{g} {expected[g]}" for g in wrong)
                problems.append(f"{where}: {label} must give {want} but gave {got}")
    return problems


def target_key(ctx, target_id: str) -> str:  # type: ignore[no-untyped-def]
    """Content address of everything admission of one target depends on (code, patches, checks)."""
    from reqbench.core.hashing import sha256_bytes, sha256_json
    from reqbench.core.workspace import tree_hash
    from reqbench.protocols.takeover.delivery.initial import initial_patches

    d = ctx.delivery(target_id)
    patches = [*initial_patches(ctx.suite_dir, ctx.suite, target_id), d.reference_patch, *d.negative_patches]
    return sha256_json({
        "repo": tree_hash(ctx.suite_dir / ctx.suite.repository),
        "hidden": tree_hash(ctx.suite_dir / d.hidden),
        "patches": [[p, sha256_bytes((ctx.suite_dir / p).read_bytes())] for p in patches],
        "checks": ctx.suite.checks_for(d).model_dump(),
    })


def suite_admission_problems(ctx) -> list[str]:  # type: ignore[no-untyped-def]
    """Admission of every delivery target, each verdict cached by the target's content address.

    Admission runs every check several times, so a verdict is remembered under
    ``<cache_root>/takeover-admission/<key>.json``: changing anything it depends on re-runs it.
    Targets are checked in parallel (one thread per core).
    """
    import json
    import os
    from concurrent.futures import ThreadPoolExecutor

    from reqbench.core.hashing import atomic_write_text
    from reqbench.core.workspace import cache_root

    def admit(target_id: str) -> list[str]:
        cached = cache_root() / "takeover-admission" / f"{target_key(ctx, target_id)}.json"
        if cached.is_file():
            return list(json.loads(cached.read_text(encoding="utf-8")))
        problems = admission_problems(ctx, target_id)
        atomic_write_text(cached, json.dumps(problems))
        return problems

    ids = [d.target_id for d in ctx.suite.delivery]
    with ThreadPoolExecutor(max_workers=max(1, min(len(ids), os.cpu_count() or 1))) as pool:
        return [p for found in pool.map(admit, ids) for p in found]
