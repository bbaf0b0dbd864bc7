"""Study fixtures: a replay store that solves a known subset of the bundled SpecPath suite, study files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from reqbench.core.bundled import bundled_suite

SPECPATH_CONDITIONS = ("direct", "duplicate", "split", "override", "cancellation", "paraphrase-direct",
                       "length-matched-no-revision")
SOLVED = {("slugkit", c) for c in SPECPATH_CONDITIONS} | {("kvconf", "direct")}
"""What the `partial` replay configuration solves: every history of slugkit, and kvconf's direct one."""


def partial_replay(path: Path) -> Path:
    """A replay store with the family's reference patch for exactly the rows in `SOLVED` (others: no submission)."""
    root = bundled_suite("specpath")
    lines = [{"row": f"{family}|{condition}|recorded|0",
              "patch": (root / family / "reference.patch").read_text(encoding="utf-8")}
             for family, condition in sorted(SOLVED)]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def write_study(path: Path, configurations: list[dict[str, Any]], **fields: Any) -> Path:
    path.write_text(yaml.safe_dump({"suite": "demo:specpath", "configurations": configurations, **fields},
                                   sort_keys=False), encoding="utf-8")
    return path
