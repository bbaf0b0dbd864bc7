"""`validate` runs every family's reference patch through its verifier once: a suite whose own reference
does not pass is not valid, whatever its files look like.

Why: a structurally perfect family can still score its reference 0 — e.g. a flat-layout repository
(package at the top) under the default ``verifier.pythonpath: ["src"]``, whose probes then cannot import
the code. That must fail `validate`, not the run. This is the cheap part of calibration (one verifier run
per family on the base + reference, no history file); `reqbench specpath calibrate` runs every gate
(base fails, negatives fail their probes, invariance across histories). A family whose reference passed
is remembered under the content address of everything the check reads (`core.validation_cache`), so validating
an unchanged suite again costs a few tree hashes, not a verifier run per family.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from reqbench import __version__
from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json, sha256_text
from reqbench.core.library_progress import steps
from reqbench.core.validation_cache import ValidationCache
from reqbench.core.workspace import tree_hash
from reqbench.protocols.specpath.family import Family

CALIBRATE_HINT = "`reqbench specpath calibrate FAMILY` runs every calibration gate"


def reference_problem(family: Family) -> str | None:
    """Why the family's reference patch does not pass every probe of its verifier, or None."""
    from reqbench.protocols.specpath.calibration import verify_patch  # only when no pass is cached

    file = family.root / "family.yaml"
    try:
        reference = family.patch_text(family.spec.reference_patch)
    except InputError as exc:
        return f"{file}: reference_patch: {exc}"
    with tempdirs.folder("specpath-validate") as tmp:
        applied, run, detail = verify_patch(family, reference, None, Path(tmp))
    if not applied or run is None:
        return f"{file}: reference_patch does not apply to the base repository ({detail})"
    roots = family.spec.verifier.pythonpath
    layout = (f"verifier.pythonpath is {roots}" + (" (the default)" if "pythonpath" not in
                                                   family.spec.verifier.model_fields_set else "")
              + "; a repository with its package at the top level needs `verifier: {pythonpath: [\".\"]}`")
    if run.harness_error:
        return (f"{file}: the verifier could not run on the reference ({run.detail.strip()[-300:]}); "
                f"{layout}; {CALIBRATE_HINT}")
    failed = [p for p in family.probes if not run.probes.get(p, False)]
    if failed:
        return (f"{file}: the reference patch fails probe(s) {', '.join(failed)} under the verifier, so the "
                f"family would score its own reference 0; {layout}; {CALIBRATE_HINT}")
    return None


def reference_key(family: Family) -> str:
    """Content address of one reference check: the family's files (family.yaml with its verifier settings,
    patches, hidden tests), its base repository, the reference patch text (which may come from a fetched
    source), the reqbench version (the guard) and the interpreter the verifier runs with."""
    return sha256_json({"family": tree_hash(family.root), "base": tree_hash(family.base_repo),
                        "hidden": tree_hash(family.hidden_dir),
                        "reference": sha256_text(family.patch_text(family.spec.reference_patch)),
                        "reqbench": __version__, "python": sys.executable})


def reference_problems(families: list[Family]) -> list[str]:
    """`reference_problem` of every family, run in parallel, with progress for whoever is watching; a family
    whose unchanged content passed before is not run again."""
    progress = steps("reference check", len(families), "families: reference patch through the verifier "
                     "(passes cached by content)")
    verdicts = ValidationCache("specpath-reference")

    def one(family: Family) -> str | None:
        started = time.perf_counter()
        try:
            key = reference_key(family)
        except InputError:
            key = None  # reference_problem names what cannot be read
        if key is not None and verdicts.passed(key):
            progress.advance(family.id, None)
            return None
        problem = reference_problem(family)
        if problem is None and key is not None:
            verdicts.record_pass(key)
        progress.advance(family.id, time.perf_counter() - started)
        return problem

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 2, len(families)))) as pool:
        return [p for p in pool.map(one, families) if p is not None]
