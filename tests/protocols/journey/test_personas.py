"""Personas (A.3): the four presets, custom personas by file, bad personas as input errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowStatus, RunOptions
from reqbench.protocols.journey.personas import PRESET_NAMES, GoalStability, load_persona, preset, presets
from reqbench.protocols.journey.suite import PROTOCOL


def test_presets_cover_the_four_profiles_with_a_pivoting_non_coder() -> None:
    assert [p.name for p in presets()] == list(PRESET_NAMES)
    assert preset("non-coder").goal_stability is GoalStability.PIVOTING
    assert preset("non-coder").expertise.value == "none" and preset("software-architect").expertise.value == "expert"
    assert preset("software-architect").verification_style.value == "review"
    assert preset("non-coder").verification_style.value == "symptoms"
    # the five dimensions differ between every pair of presets in at least one place
    dims = ("expertise", "detail_preference", "control_style", "goal_stability", "verification_style")
    rows = {tuple(getattr(p, d) for d in dims) for p in presets()}
    assert len(rows) == 4


def test_custom_persona_file_is_a_condition(calc_instance: Path, tmp_path: Path) -> None:
    file = tmp_path / "impatient.yaml"
    file.write_text("name: impatient\ntitle: Impatient expert\ndescription: Wants it now.\nexpertise: expert\n"
                    "detail_preference: detailed\ncontrol_style: directive\ngoal_stability: stable\n"
                    "verification_style: review\ninitial_confidence: 15\nno_progress_penalty: 15\n")
    assert load_persona(str(file)).initial_confidence == 15
    suite = PROTOCOL.load(calc_instance)
    rows = suite.plan(RunOptions(agent="null", conditions=(str(file),)))
    assert [r.condition for r in rows] == [str(file)]
    out = suite.run_row(rows[0], RowContext(RunOptions(agent="null"), tmp_path / "w"))
    assert out.status == RowStatus.SCORED
    assert (out.result.end_reason, out.result.turns, out.result.final_confidence) == (
        "confidence_zero", 1, 0)


def test_unknown_or_malformed_persona_is_an_input_error(calc_instance: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown persona"):
        PROTOCOL.load(calc_instance).plan(RunOptions(agent="null", conditions=("pirate",)))
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntitle: X\ndescription: d\nexpertise: wizard\ndetail_preference: minimal\n"
                   "control_style: directive\ngoal_stability: stable\nverification_style: review\n")
    with pytest.raises(InputError, match="expertise"):
        load_persona(str(bad))
    with pytest.raises(InputError):
        PROTOCOL.load(calc_instance).run_row(Row("calc", str(bad), "null", 0),
                                             RowContext(RunOptions(agent="null"), tmp_path))
