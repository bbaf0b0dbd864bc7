"""`reqbench takeover score-run` says which response files it could not match and which targets have no
response, and refuses a folder where no file matches any target -- a misnamed file must not score as a
silent 0. Real CLI subprocess over the released fixture's instances."""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.protocols.takeover.scoring.target import gold_response
from tests.protocols.takeover.score_helpers import STAGE2, fixture_paths, fixture_target
from tests.protocols.takeover.test_score_fixture import _cli


def _responses(root: Path, names: dict[str, str]) -> None:
    folder = root / "responses" / "gold" / "C1"
    folder.mkdir(parents=True)
    for file_name, target in names.items():
        (folder / file_name).write_text(json.dumps(gold_response(fixture_target(target), "C1")))


def test_misnamed_and_missing_responses_are_listed(tmp_path: Path) -> None:
    fixture_paths("T001")
    _responses(tmp_path, {"44132019_T001.json": "T001", "T002.json": "T002"})  # the second is misnamed
    proc = _cli("score-run", str(tmp_path), "--instances", str(STAGE2), "--json")
    assert proc.returncode == 0, proc.stderr
    assert "responses/gold/C1: no response for 1 of 2 target(s) (44132019_T002)" in proc.stderr
    assert "1 file(s) match no target and are not scored (T002.json)" in proc.stderr
    json.loads(proc.stdout)  # stdout stays the JSON document


def test_a_folder_where_no_file_matches_any_target_is_refused(tmp_path: Path) -> None:
    fixture_paths("T001")
    _responses(tmp_path, {"T001.json": "T001", "T002.json": "T002"})
    proc = _cli("score-run", str(tmp_path), "--instances", str(STAGE2))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "no response file matches a target" in proc.stderr
    assert "T001.json" in proc.stderr and "44132019_T001.json" in proc.stderr
    assert "Table" not in proc.stdout
