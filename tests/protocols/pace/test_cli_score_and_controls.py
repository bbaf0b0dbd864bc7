"""End to end through the real CLI on the bundled billflow case (offline judge)."""

import json

from tests.protocols.pace.conftest import BILLFLOW, run_cli


def test_reference_patch_scores_complete_with_every_point_covered() -> None:
    proc = run_cli("pace", "score", str(BILLFLOW), "--patch", str(BILLFLOW / "reference.patch"),
                   "--judge", "offline", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["score"] == 100.0 and out["complete"] is True
    assert len(out["verdicts"]) == 16 and set(out["verdicts"].values()) == {"Covered"}


def test_controls_separate_the_reference_from_superficial_patches() -> None:
    proc = run_cli("pace", "controls", str(BILLFLOW), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out) >= {"reference", "empty", "unrelated", "cross_case", "identifier_only"}
    assert out["reference"] >= 95
    assert out["empty"] == 0 and out["unrelated"] == 0
    assert out["identifier_only"] <= 10
    assert out["cross_case"] is None  # the cachetools patch does not apply to this base: excluded


def test_patch_for_another_base_is_bad_input_not_a_zero(tmp_path) -> None:
    from tests.protocols.pace.conftest import CACHETOOLS

    proc = run_cli("pace", "score", str(BILLFLOW), "--patch", str(CACHETOOLS / "reference.patch"), "--json")
    assert proc.returncode == 2
    assert "does not apply" in proc.stderr


def test_validate_accepts_the_bundled_dir_case() -> None:
    proc = run_cli("pace", "validate", str(BILLFLOW), "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout) == {"valid": True, "problems": []}
