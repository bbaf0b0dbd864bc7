"""A generated SpecPath-shaped scale suite: families x configs x conditions x repeats rows.

`generate(root, families=5)` writes a specpath suite of `families` families, each a copy of a bundled
family (slugkit, kvconf, durations in turn) under its own id, so every row runs real pytest probes
through the real verifier. `matrix_rows(suite, configs, repeats)` plans every family x condition x repeat
for `configs` agent configurations labelled ``reference/cNN`` (all run with the `reference` agent; the
label only makes them distinct rows, as different deployments of one scaffold would be). The default,
5 x 14 x 7 x 3, is 1,470 rows.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.types import Row
from reqbench.protocols.specpath.models import ALL_CONDITIONS

SOURCES = ("slugkit", "kvconf", "durations")


def generate(root: Path, families: int = 5) -> Path:
    """Write the suite under `root` (replaced if present) and return its path."""
    bundled = bundled_suite("specpath")
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    ids = []
    for i in range(families):
        source = SOURCES[i % len(SOURCES)]
        fid = f"f{i + 1}-{source}"
        shutil.copytree(bundled / source, root / fid, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        spec = root / fid / "family.yaml"
        spec.write_text(re.sub(r"(?m)^id: .*$", f"id: {fid}", spec.read_text(encoding="utf-8"), count=1),
                        encoding="utf-8")
        calibration = root / fid / "calibration.json"
        if calibration.is_file():
            data = json.loads(calibration.read_text(encoding="utf-8"))
            data["family"] = fid
            calibration.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        ids.append(fid)
    (root / "suite.yaml").write_text("protocol: specpath\nname: specpath-scale\nfamilies:\n"
                                     + "".join(f"  - {fid}\n" for fid in ids), encoding="utf-8")
    return root


def matrix_rows(suite: Path, configs: int = 14, repeats: int = 3) -> list[Row]:
    fids = sorted(p.name for p in suite.iterdir() if (p / "family.yaml").is_file())
    return [Row(fid, cond, f"reference/c{c + 1:02d}", rep) for rep in range(repeats) for c in range(configs)
            for fid in fids for cond in ALL_CONDITIONS]
