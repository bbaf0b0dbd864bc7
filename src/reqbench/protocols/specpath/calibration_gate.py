"""The run gate on verifier calibration (SpecPath "Verifier calibration": a verifier is used for scoring
only after it separates the contract from its near-misses).

A family counts as calibrated when a *passing* audit of the current `AUDIT_VERSION` exists for exactly its
current inputs (`inputs_of`: family.yaml, base tree, hidden tree, reference and negative
patches): the family's own ``calibration.json`` (the bundled families ship theirs) or the cache entry
``$REQBENCH_CACHE/specpath-calibration/<sha256 of the inputs>.json`` that ``reqbench specpath calibrate``
writes whenever a family passes. Any edit to a family therefore needs a new calibration.

``reqbench run`` refuses every other family before anything is created (protocol `plan`), naming the
command that calibrates it, unless ``--agent-opt specpath.allow_uncalibrated=true``; the option is kept
in the run's recorded options (and so in its provenance and report), and a resume cannot change it.

The gate owns what an audit is keyed by (`AUDIT_VERSION`, `inputs_of`); `calibration` runs the audits and
is not imported to check one, so planning a run does not load the verifier machinery it does not use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core.cache_location import cache_root
from reqbench.core.hashing import sha256_json, sha256_text, write_json
from reqbench.core.workspace import tree_hash
from reqbench.protocols.specpath.family import Family

if TYPE_CHECKING:
    from reqbench.protocols.specpath.calibration import Audit

AUDIT_VERSION = "specpath-calibration-v2"
"""v2: selective negatives and reference collection errors as verifier failures."""

FAMILY_RECORD = "calibration.json"


def inputs_of(family: Family) -> dict[str, str]:
    """sha256 of every input a calibration verdict depends on (the family's content address)."""
    out = {"family.yaml": sha256_text((family.root / "family.yaml").read_text(encoding="utf-8")),
           "base_repo_tree": tree_hash(family.base_repo), "hidden_tree": tree_hash(family.hidden_dir),
           "reference.patch": sha256_text(family.patch_text(family.spec.reference_patch))}
    for atom, rel in sorted(family.spec.negatives.items()):
        out[f"negative:{atom}"] = sha256_text(family.patch_text(rel))
    return out


def _cache_file(inputs: dict[str, str]) -> Path:
    return cache_root() / "specpath-calibration" / f"{sha256_json(inputs)}.json"


def _passing(path: Path, inputs: dict[str, str]) -> bool:
    try:
        record: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(record, dict) and record.get("audit_version") == AUDIT_VERSION
            and record.get("passed") is True and record.get("inputs") == inputs)


def calibration_source(family: Family) -> str | None:
    """Where the passing audit of the family's current inputs is (``family`` or ``cache``), or None."""
    inputs = inputs_of(family)
    if _passing(family.root / FAMILY_RECORD, inputs):
        return "family"
    if _passing(_cache_file(inputs), inputs):
        return "cache"
    return None


def remember(audit: Audit) -> Path | None:
    """Cache a passing audit under its inputs' address (a failing one is never cached)."""
    if not audit.passed:
        return None
    path = _cache_file(audit.inputs)
    write_json(path, audit.to_dict())
    return path


def uncalibrated(families: dict[str, Family]) -> list[str]:
    """One sentence per family without a passing calibration of its current inputs."""
    return [f"{fam.root / 'family.yaml'}: not calibrated for its current content; run `reqbench specpath "
            f"calibrate {fam.root}` (or pass --agent-opt specpath.allow_uncalibrated=true, recorded in the run)"
            for fid, fam in sorted(families.items()) if calibration_source(fam) is None]
