"""Calibration catches every broken family kind (reference fails, base passes, empty negative, negative
that passes its probe, verifier reading the prompt) and passes a sound one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_run_refuses_an_uncalibrated_or_edited_family_unless_allowed_and_recorded(
        tally_family: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reqbench.core.errors import InputError
    from reqbench.core.execute.types import RunOptions
    from reqbench.protocols.specpath.suite import PROTOCOL

    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    with pytest.raises(InputError, match="not calibrated for its current content; run `reqbench specpath calibrate"):
        PROTOCOL.load(tally_family).plan(RunOptions(agent="null"))
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", "calibrate", str(tally_family)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(PROTOCOL.load(tally_family).plan(RunOptions(agent="null"))) == 7  # cached by content address
    # the agent's answers are not the only thing that can change: editing the hidden tests after calibration
    probes = tally_family / "hidden" / "test_probes.py"
    probes.write_text(probes.read_text() + "\n\ndef test_always():\n    assert True\n")
    with pytest.raises(InputError, match="not calibrated"):
        PROTOCOL.load(tally_family).plan(RunOptions(agent="null"))
    allow = RunOptions(agent="null", agent_options={"specpath.allow_uncalibrated": "true"})
    assert len(PROTOCOL.load(tally_family).plan(allow)) == 7
    with pytest.raises(InputError, match="valid boolean"):
        PROTOCOL.load(tally_family).plan(RunOptions(agent="null", agent_options={"specpath.allow_uncalibrated": "maybe"}))


def test_negative_breaking_another_atoms_probe_is_not_selective(tally_family: Path, tmp_path: Path) -> None:
    from reqbench.protocols.specpath.calibration import calibrate_family
    from reqbench.protocols.specpath.family import load_family
    from tests.protocols.specpath.conftest import BASE, _patch

    loop = "    for w in words:\n"
    # besides its own atom (case), the negative stops counting repeats: the fixed behaviour's probe fails
    broken = BASE.replace(loop, loop + "        w = w.strip()\n").replace("counts.get(w, 0) + 1", "1")
    (tally_family / "negatives" / "ignore_case.patch").write_text(_patch(tmp_path, broken))
    audit = calibrate_family(load_family(tally_family), workers=2)
    gates = {g.name: g for g in audit.gates}
    assert not gates["negatives"].passed
    assert "is not selective: it also fails ['test_probes.py::test_words_are_counted']" in gates["negatives"].detail
    assert gates["reference"].passed and gates["verifier"].passed


def test_reference_collection_error_fails_the_verifier_gate(tally_family: Path) -> None:
    from reqbench.protocols.specpath.calibration import calibrate_family
    from reqbench.protocols.specpath.family import load_family

    probes = tally_family / "hidden" / "test_probes.py"
    probes.write_text("import not_a_module_anywhere\n" + probes.read_text())
    audit = calibrate_family(load_family(tally_family), workers=2)
    gates = {g.name: g for g in audit.gates}
    assert not gates["verifier"].passed
    assert gates["verifier"].detail == ("reference under direct: collection or import error of the hidden "
                                        "tests in ['test_probes.py']")
