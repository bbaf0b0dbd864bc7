"""Calibration catches every broken family kind (reference fails, base passes, empty negative, negative
that passes its probe, verifier reading the prompt) and passes a sound one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reqbench.protocols.specpath.calibration import calibrate_family
from reqbench.protocols.specpath.family import load_family
from reqbench.protocols.specpath.verifier import buckets


def _gates(audit) -> dict[str, tuple[bool, str]]:  # type: ignore[no-untyped-def]
    return {g.name: (g.passed, g.detail) for g in audit.gates}


def test_sound_family_passes_every_gate_and_records_signatures(tally_family: Path) -> None:
    audit = calibrate_family(load_family(tally_family))
    assert audit.passed, audit.to_dict()["gates"]
    record = audit.to_dict()
    assert set(record["signatures"]) == {"base", "reference", "negative:ignore_case"}
    assert all(sig == [1, 1] for sig in record["signatures"]["reference"].values())
    assert all(sig == [0, 1] for sig in record["signatures"]["base"].values())
    assert all(sig == [0, 1] for sig in record["signatures"]["negative:ignore_case"].values())
    assert len(record["signatures"]["base"]) == 5 and len(record["inputs"]["hidden_tree"]) == 64


def test_calibration_catches_failing_reference_empty_negative_and_prompt_reading_verifier(
        tally_family: Path) -> None:
    fam = tally_family
    (fam / "reference.patch").write_text((fam / "negatives" / "ignore_case.patch").read_text())
    (fam / "negatives" / "ignore_case.patch").write_text("")
    # The fixed-obligation probe peeks at the history file the agent saw: it fails only under override.
    probes = (fam / "hidden" / "test_probes.py").read_text()
    (fam / "hidden" / "test_probes.py").write_text(probes.replace(
        'def test_words_are_counted():\n',
        'def test_words_are_counted():\n    import pathlib\n'
        '    seen = pathlib.Path("SPEC_HISTORY.md")\n'
        '    assert not seen.exists() or "uppercase" not in seen.read_text()\n'))
    gates = _gates(calibrate_family(load_family(fam)))
    assert gates["reference"][0] is False
    assert gates["negatives"] == (False, "negative:ignore_case is empty")
    assert gates["invariance"][0] is False and "override" in gates["invariance"][1]
    assert gates["base"][0] is True and gates["buckets"][0] is True


def test_cli_calibrate_catches_passing_base_and_non_selective_negative(tally_family: Path,
                                                                       tmp_path: Path) -> None:
    fam = tally_family
    probes = (fam / "hidden" / "test_probes.py").read_text()
    (fam / "hidden" / "test_probes.py").write_text(probes.replace(
        'assert tally(["A", "a", "b"]) == {"a": 2, "b": 1}',
        'assert sum(tally(["A", "a", "b"]).values()) == 3'))
    out = tmp_path / "audit.json"
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", "calibrate",
                           str(fam), "--json", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    record = json.loads(out.read_text())
    assert record == json.loads(proc.stdout) and record["passed"] is False
    gates = {g["name"]: (g["passed"], g["detail"]) for g in record["gates"]}
    assert gates["base"][0] is False
    assert gates["negatives"] == (False, "negative:ignore_case passes its target probe(s) under direct")
    assert gates["reference"][0] is True and gates["invariance"][0] is True


def test_probe_buckets_fail_closed_and_group_parametrised_cases() -> None:
    reported = {"t.py::test_a[1]": True, "t.py::test_a[2]": False, "t.py::test_b": True,
                "t.py::test_ab": True}
    passed, collected = buckets(reported, ("t.py::test_a", "t.py::test_b", "t.py::test_gone"))
    assert passed == {"t.py::test_a": False, "t.py::test_b": True, "t.py::test_gone": False}
    assert collected == {"t.py::test_a": 2, "t.py::test_b": 1, "t.py::test_gone": 0}
