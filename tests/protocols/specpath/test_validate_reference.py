"""`validate` runs the reference through the verifier: a family that would score its own reference 0
fails validation, with a message that says why and how to fix it."""

from __future__ import annotations

import shutil
from pathlib import Path

from reqbench.protocols.specpath.suite import SpecPathProtocol
from tests.cli.generic_helpers import reqbench

SLUGKIT = Path(__file__).resolve().parents[3] / "src" / "reqbench" / "examples" / "specpath" / "slugkit"


def _flat_layout(tmp_path: Path) -> Path:
    """slugkit with its package moved from repo/src/slugkit to repo/slugkit (patches rewritten to match)."""
    family = tmp_path / "flat"
    shutil.copytree(SLUGKIT, family)
    (family / "calibration.json").unlink(missing_ok=True)
    (family / "repo" / "src" / "slugkit").rename(family / "repo" / "slugkit")
    (family / "repo" / "src").rmdir()
    for patch in [family / "reference.patch", *(family / "negatives").glob("*.patch")]:
        patch.write_text(patch.read_text().replace("a/src/", "a/").replace("b/src/", "b/"))
    return family


def test_validate_fails_flat_layout_family_with_default_pythonpath(tmp_path: Path) -> None:
    family = _flat_layout(tmp_path)
    proc = reqbench("validate", str(family))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    out = " ".join((proc.stdout + proc.stderr).split())
    probes = ", ".join(f"test_probes.py::{t}" for t in ("test_runs_collapse_to_one_hyphen",
                       "test_no_hyphen_at_either_end", "test_digits_are_kept", "test_output_is_lowercase"))
    assert f"the reference patch fails probe(s) {probes} under the verifier" in out, out
    assert "verifier.pythonpath is ['src'] (the default)" in out
    assert 'needs `verifier: {pythonpath: ["."]}`' in out and "reqbench specpath calibrate" in out
    assert "✓" not in proc.stdout


def test_validate_passes_flat_layout_family_once_pythonpath_is_set(tmp_path: Path) -> None:
    family = _flat_layout(tmp_path)
    yaml = family / "family.yaml"
    yaml.write_text(yaml.read_text().replace("verifier:\n", "verifier:\n  pythonpath: [\".\"]\n"))
    assert SpecPathProtocol().validate(family) == []
    proc = reqbench("specpath", "validate", str(family))
    assert proc.returncode == 0, proc.stderr
    assert "every family's reference patch passes its verifier" in proc.stdout
