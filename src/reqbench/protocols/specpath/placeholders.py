"""The unfinished parts of a scaffolded family: every value still marked ``FILL IN``.

`reqbench specpath scaffold` writes a family skeleton whose atoms, histories and negative deltas a
person has to write; each of those spots holds a string containing `MARKER`. Loading refuses such a
family with one error listing every spot (``atoms[0].scope``, ``negatives/atom_1.patch``, ...), so
`check`, `calibrate`, `validate` and `run` all say what is missing instead of accepting a half-written
contract or failing later on a patch that is only a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError

MARKER = "FILL IN"
"""The text every placeholder of a scaffolded family contains."""


def _walk(data: Any, where: str) -> list[str]:
    if isinstance(data, str):
        return [where] if MARKER in data else []
    if isinstance(data, dict):
        return [hit for key, value in data.items()
                for hit in _walk(value, f"{where}.{key}" if where else str(key))]
    if isinstance(data, list):
        return [hit for i, value in enumerate(data) for hit in _walk(value, f"{where}[{i}]")]
    return []


def _patch_files(data: Any) -> list[str]:
    """Family-relative patch files the raw `negatives` / `reference_patch` entries name (best effort:
    the real parsing of these expressions happens after this check)."""
    exprs = list(data.get("negatives", {}).values()) if isinstance(data.get("negatives"), dict) else []
    exprs.append(data.get("reference_patch"))
    out = []
    for expr in exprs:
        if isinstance(expr, str):
            out += [t.strip() for t in expr.split(" + ")
                    if t.strip() and t.strip() != "reference" and ":" not in t]
    return out


def unfinished(root: Path, data: Any) -> list[str]:
    """Every placeholder left in a family: YAML key paths, then patch files that are still notes."""
    if not isinstance(data, dict):
        return []
    spots = _walk(data, "")
    for rel in _patch_files(data):
        path = root / rel
        try:
            if MARKER in path.read_text(encoding="utf-8", errors="replace"):
                spots.append(rel)
        except OSError:
            continue  # a missing patch file is reported where patches are read
    return spots


def refuse_unfinished(root: Path, data: Any, file: str) -> None:
    """Raise one `InputError` naming every placeholder of a scaffolded family (nothing when complete)."""
    spots = unfinished(root, data)
    if spots:
        raise InputError(f"the family is a scaffold with {len(spots)} part(s) still to write (each marked "
                         f"{MARKER!r}): {', '.join(spots)}; see the comments in family.yaml and "
                         f"`reqbench specpath scaffold --help`", file=file)
