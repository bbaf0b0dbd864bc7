"""The shipped Phase-A instructions state the paper's response rules in reqbench's own words (D.3), and
``--agent-opt takeover.instructions=FILE`` replaces them (validated, the error names the key)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.takeover.phase_a.response import check_response
from reqbench.protocols.takeover.phase_a.texts import load_phase_a_texts
from reqbench.protocols.takeover.run.context import SuiteContext
from reqbench.protocols.takeover.run.options import split_options
from reqbench.protocols.takeover.run.rows import _package_stage

SUITE = bundled_suite("takeover")


def test_shipped_instructions_state_every_response_rule() -> None:
    text = load_phase_a_texts().instructions
    assert "`REQ_` followed by capital letters" in text and "rejected as a whole" in text  # reserved form
    assert "scores zero on every measure" in text
    assert "Each state is closed" in text and "counts as absent" in text  # closed world
    assert "Do not make up" in text and "identifiers" in text  # no invented internal identifiers
    assert "Write no\ntext before or after it" in text  # no prose outside the JSON object


def test_a_response_with_a_reserved_reference_is_rejected_whole() -> None:
    state = {"attributes": {}, "scope": {"persistence": None, "components": None, "contexts": None},
             "lifecycle_status": "ACTIVE", "ambiguity": None, "execution": None}
    response = {"requirements": [{"requirement_ref": "REQ_VAT", "requirement_summary": "VAT",
                                  "evidence_message_ids": [], "pre_task_state": state}],
                "decision": "ACT", "post_task_states": [{"requirement_ref": "REQ_VAT", "requirement_summary": "VAT",
                                                         "change_type": "MODIFIED", "removed_attribute_keys": [],
                                                         "state": state}], "clarifications": []}
    check = check_response(response, [])
    assert check.frozen is None and any("reserved" in p for p in check.problems)


def _opts(**agent_options: object) -> RunOptions:
    return RunOptions(agent_options=dict(agent_options))


def test_instructions_option_is_validated_and_names_the_key(tmp_path: Path) -> None:
    key = "--agent-opt takeover.instructions"
    with pytest.raises(InputError, match="does not exist") as missing:
        split_options(_opts(**{"takeover.instructions": str(tmp_path / "nope.md")}))
    assert key in str(missing.value)
    latin1 = tmp_path / "latin1.md"
    latin1.write_bytes("Antwort auf Deutsch: gr\xfc\xdfe".encode("latin-1"))
    with pytest.raises(InputError, match="not UTF-8") as bad:
        split_options(_opts(**{"takeover.instructions": str(latin1)}))
    assert key in str(bad.value)
    with pytest.raises(InputError, match="unknown option") as unknown:
        split_options(_opts(**{"takeover.instruction": "x"}))
    assert "takeover.instruction" in str(unknown.value)
    good = tmp_path / "mine.md"
    good.write_text("Answer in JSON.\n", encoding="utf-8")
    settings, rest = split_options(_opts(**{"takeover.instructions": str(good), "model": "m"}))
    assert settings.texts.instructions == "Answer in JSON.\n" and rest == {"model": "m"}


def test_the_file_replaces_the_package_instructions_of_phase_a(tmp_path: Path) -> None:
    ctx = SuiteContext.load(SUITE, tmp_path / "cache")
    mine = tmp_path / "mine.md"
    mine.write_text("Own words for Phase A.\n", encoding="utf-8")
    default = _package_stage(ctx, "DOCKSIDE_T001", "C1", _opts())
    assert default.instructions == load_phase_a_texts().instructions
    replaced = _package_stage(ctx, "DOCKSIDE_T001", "C1", _opts(**{"takeover.instructions": str(mine)}))
    assert replaced.instructions == "Own words for Phase A.\n" and "instructions.md" not in replaced.files


def test_run_refuses_a_missing_instructions_file_with_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "run", str(SUITE), "--agent", "null",
                           "--condition", "diag-C1", "--out", str(tmp_path / "run"), "--quiet",
                           "--agent-opt", f"takeover.instructions={tmp_path / 'missing.md'}"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "takeover.instructions" in proc.stdout + proc.stderr
