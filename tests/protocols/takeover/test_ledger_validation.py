"""Each validation rule refuses its violation in one sentence naming project, requirement, event, rule."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.annotation.loading import load_project, validate_project
from reqbench.protocols.takeover.annotation.validation import check_all

from .ledger_factory import event, messages, small, write

M = messages("cfcfcf")
Mut = Callable[[dict, dict, dict], None]


def _ev(ann: dict, r: int, e: int) -> dict:
    return ann["requirements"][r]["events"][e]


def _append(ann: dict, r: int, ev: dict) -> None:
    ann["requirements"][r]["events"].append(ev)


CASES: list[tuple[str, Mut, str | None, str | None]] = [
    ("E01", lambda n, a, t: _ev(a, 0, 1).update(event_type="GUESS"), "REQ_A", "REQ_A_E002"),
    ("E02", lambda n, a, t: _ev(a, 0, 1).update(value_updates={"q": 1}), "REQ_A", "REQ_A_E002"),
    ("E03", lambda n, a, t: _ev(a, 0, 1).update(ambiguity=None), "REQ_A", "REQ_A_E002"),
    (
        "E04",
        lambda n, a, t: _append(
            a,
            1,
            event(
                "REQ_B",
                2,
                6,
                "RUNTIME_FAILURE",
                M,
                execution={"status": "VERIFIED_WORKING", "observed_behavior": "x"},
            ),
        ),
        "REQ_B",
        "REQ_B_E002",
    ),
    ("E05", lambda n, a, t: _ev(a, 0, 1)["ambiguity"].update(dimension="COLOR"), "REQ_A", "REQ_A_E002"),
    ("E06", lambda n, a, t: _ev(a, 0, 2).update(value_removals=[]), "REQ_A", "REQ_A_E003"),
    ("E07", lambda n, a, t: _ev(a, 0, 2)["value_updates"].update(y=3), "REQ_A", "REQ_A_E003"),
    ("E08", lambda n, a, t: _ev(a, 0, 0)["source_message"].update(message_id=99), "REQ_A", "REQ_A_E001"),
    ("E09", lambda n, a, t: _ev(a, 0, 0)["source_message"].update(text="edited"), "REQ_A", "REQ_A_E001"),
    ("E10", lambda n, a, t: _ev(a, 0, 2).update(supporting_message_ids=[5]), "REQ_A", "REQ_A_E003"),
    (
        "E11",
        lambda n, a, t: _ev(a, 0, 1).update(
            source_message=event("R", 1, 6, "AMBIGUOUS", M)["source_message"]
        ),
        "REQ_A",
        "REQ_A_E003",
    ),
    ("E12", lambda n, a, t: _ev(a, 0, 2).update(resolves_ambiguity_event_ids=[]), "REQ_A", "REQ_A_E003"),
    (
        "E13",
        lambda n, a, t: _ev(a, 0, 2).update(resolves_ambiguity_event_ids=["REQ_A_E099"]),
        "REQ_A",
        "REQ_A_E003",
    ),
    (
        "E14",
        lambda n, a, t: _ev(a, 1, 0).update(resolves_ambiguity_event_ids=["REQ_A_E002"]),
        "REQ_B",
        "REQ_B_E001",
    ),
    (
        "E15",
        lambda n, a, t: _ev(a, 0, 0).update(resolves_ambiguity_event_ids=["REQ_A_E002"]),
        "REQ_A",
        "REQ_A_E001",
    ),
    (
        "E16",
        lambda n, a, t: _append(
            a, 0, event("REQ_A", 4, 6, "RESUME", M, resolves_ambiguity_event_ids=["REQ_A_E002"])
        ),
        "REQ_A",
        "REQ_A_E004",
    ),
    (
        "E17",
        lambda n, a, t: _append(a, 0, event("REQ_A", 4, 6, "INTRODUCE", M, value_updates={"x": 2})),
        "REQ_A",
        "REQ_A_E004",
    ),
    (
        "E18",
        lambda n, a, t: (
            _append(a, 0, event("REQ_A", 4, 6, "REMOVE", M)),
            _append(a, 0, event("REQ_A", 5, 6, "RESUME", M)),
        ),
        "REQ_A",
        "REQ_A_E005",
    ),
    (
        "E19",
        lambda n, a, t: _append(a, 0, event("REQ_A", 4, 6, "MODIFY", M, value_removals=["y"])),
        "REQ_A",
        "REQ_A_E004",
    ),
    ("P01", lambda n, a, t: a.update(annotation_version="v0.5"), None, None),
    ("P02", lambda n, a, t: a["project"].update(project_id="OTHER"), None, None),
    ("P03", lambda n, a, t: n["messages"][1].update(message_id="1"), None, None),
    ("P04", lambda n, a, t: a["requirements"][1].update(family_id="NOPE"), "REQ_B", None),
    ("P05", lambda n, a, t: a["requirements"][1].update(requirement_id="REQ_A"), "REQ_A", None),
    ("P06", lambda n, a, t: _ev(a, 1, 0).update(event_id="REQ_A_E001"), "REQ_A", "REQ_A_E001"),
    ("S01", lambda n, a, t: _ev(a, 0, 0).update(colour="red"), "REQ_A", "REQ_A_E001"),
    ("T01", lambda n, a, t: t["selected_targets"].append(dict(t["selected_targets"][0])), None, None),
    ("T02", lambda n, a, t: t["selected_targets"][0].update(message_id=77), None, None),
    ("T03", lambda n, a, t: t["selected_targets"][0].update(message_id=4), None, None),
    ("T04", lambda n, a, t: t["selected_targets"][0].update(history_turn_count=3), None, None),
    ("T05", lambda n, a, t: t["selected_targets"][0].update(message_id=6), None, None),
    ("T06", lambda n, a, t: t["selected_targets"][0].update(affected_requirement_ids=["REQ_A"]), None, None),
]


@pytest.mark.parametrize(("code", "mutate", "rid", "eid"), CASES, ids=[c[0] for c in CASES])
def test_each_rule_violation_is_refused_with_project_requirement_event_and_rule(
    code: str, mutate: Mut, rid: str | None, eid: str | None
) -> None:
    normalized, annotation, targets = small()
    mutate(normalized, annotation, targets)
    project, problems = check_all(normalized, annotation, targets, file="annotation.json")
    assert project is None
    mine = [p for p in problems if p.code == code]
    assert mine, [str(p) for p in problems]
    text = str(mine[0])
    assert text.startswith("annotation.json: project P1") and text.endswith(f"(rule {code})")
    if rid:
        assert f"requirement {rid}" in text
    if eid:
        assert f"event {eid}" in text


def test_valid_project_has_no_problems_and_execution_evidence_after_remove_is_allowed() -> None:
    normalized, annotation, targets = small()
    _append(annotation, 1, event("REQ_B", 2, 6, "REMOVE", M))
    _append(
        annotation,
        1,
        event(
            "REQ_B",
            3,
            6,
            "RUNTIME_FAILURE",
            M,
            execution={"status": "FAILED", "observed_behavior": "still there"},
        ),
    )
    project, problems = check_all(normalized, annotation, targets)
    assert problems == [] and project is not None


def test_validate_reports_all_problems_at_once_and_load_refuses(tmp_path: Path) -> None:
    normalized, annotation, targets = small()
    _ev(annotation, 0, 2)["value_updates"]["y"] = 3  # E07
    _ev(annotation, 0, 0)["source_message"]["text"] = "edited"  # E09
    _append(annotation, 0, event("REQ_A", 4, 6, "INTRODUCE", M, value_updates={"x": 2}))  # E17
    _append(annotation, 1, event("REQ_B", 2, 6, "MODIFY", M, value_removals=["gone"]))  # E19 (replay)
    folder = write(tmp_path / "p", normalized, annotation, targets)
    problems = validate_project(folder)
    assert sorted(p.rsplit("(rule ", 1)[1] for p in problems) == ["E07)", "E09)", "E17)", "E19)"]
    with pytest.raises(InputError, match=r"and 3 more"):
        load_project(folder)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reqbench.cli.main", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_validate_exits_2_listing_every_problem_and_build_writes_nothing(tmp_path: Path) -> None:
    normalized, annotation, targets = small()
    _ev(annotation, 0, 1)["event_type"] = "GUESS"
    folder = write(tmp_path / "p", normalized, annotation, targets)
    res = _cli("takeover", "validate", str(folder), "--json")
    assert res.returncode == 2
    report = json.loads(res.stdout)
    assert report["valid"] is False and any("(rule E01)" in p for p in report["problems"])
    out = tmp_path / "out"
    res = _cli("takeover", "build", str(folder), "--out", str(out))
    assert res.returncode == 2 and "rule E01" in res.stderr
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["p"]


def test_cli_validate_accepts_a_valid_project(tmp_path: Path) -> None:
    folder = write(tmp_path / "p", *small())
    res = _cli("takeover", "validate", str(folder))
    assert res.returncode == 0 and "valid" in res.stdout


def test_each_problem_names_the_file_it_is_about(tmp_path: Path) -> None:
    normalized, annotation, targets = small()
    normalized["messages"][1]["message_id"] = "1"  # P03 (catalog)
    targets["selected_targets"][0]["message_id"] = 77  # T02 (targets)
    annotation["annotation_version"] = "v0.5"  # P01 (annotation)
    folder = write(tmp_path / "p", normalized, annotation, targets)
    by_code = {p.rsplit("(rule ", 1)[1][:-1]: p for p in validate_project(folder)}
    assert by_code["P03"].startswith(str(folder / "normalized_project.json"))
    assert by_code["T02"].startswith(str(folder / "selected_target_times.json"))
    assert by_code["P01"].startswith(str(folder / "annotation.json"))
