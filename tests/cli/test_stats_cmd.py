"""`reqbench stats`: the dataset-statistics tables of each bundled suite, through the real command.

Every expected number was counted by hand from the suite's files (the comment says where), so the tables
are checked against the artefacts, not against the code that computes them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.generic_helpers import REPO, cli_env, reqbench
from tests.core.toy_protocol import write_suite


def stats_json(name: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "reqbench", "stats", f"demo:{name}", "--json"],
                          capture_output=True, text=True, timeout=300, env=cli_env(), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    assert out["protocol"] == name
    return out


def table(out: dict[str, Any], prefix: str) -> dict[str, dict[str, Any]]:
    found = [t for t in out["stats"]["tables"] if t["title"].startswith(prefix)]
    assert len(found) == 1, [t["title"] for t in out["stats"]["tables"]]
    rows: dict[str, dict[str, Any]] = found[0]["rows"]
    return rows


def test_takeover_scope_history_lengths_and_gold_items() -> None:
    out = stats_json("takeover")
    scope = {label: row["count"] for label, row in table(out, "scope").items()}
    # normalized_project.json: 64 messages; annotation.json: 12 requirements, 11 INTRODUCE and 10 MODIFY
    # events; selected_target_times.json: 6 targets; suite.yaml: 5 delivery targets (T005 has none)
    assert scope["messages"] == 64 and scope["requirements"] == 12
    assert scope["events INTRODUCE"] == 11 and scope["events MODIFY"] == 10 and scope["events REMOVE"] == 1
    assert scope["selected targets"] == 6 and scope["delivery targets"] == 5
    # T005 (message 47) introduces REQ_PRORATION with an AMBIGUOUS event at the same message: CLARIFY
    assert scope["gold ACT"] == 5 and scope["gold CLARIFY"] == 1
    # hidden tests: 7 + 4 + 6 + 5 + 5 test functions in targets/T00*/hidden
    assert scope["hidden tests"] == 27
    history = table(out, "history lengths")
    # history_turn_count 23, 29, 37, 43, 46, 51: median (37+43)/2, Q1 29 + 0.25*8, Q3 43 + 0.75*3
    assert history["diagnostic targets, C1"] == {"count": 6, "mean": 38.1667, "min": 23, "Q1": 31,
                                                 "median": 40, "Q3": 45.25, "max": 51}
    assert history["delivery targets, C1"]["median"] == 37  # without T005's 46
    # C2 = source + supporting messages of the affected requirements before the target:
    # T001 {4,5}, T002 {6,7,13}, T003 {8,9,14,15}, T004 {18,19,21,22,23}, T005 {2,3,20}, T006 {47,48,49}
    assert history["diagnostic targets, C2"] | {"mean": None} == {
        "count": 6, "mean": None, "min": 2, "Q1": 3, "median": 3, "Q3": 3.75, "max": 5}
    assert history["complete project interactions"]["max"] == 64
    gold = {label: row["gold items"] for label, row in table(out, "gold items").items()}
    # affected requirements that existed before each request: 1 + 2 + 1 + 1 + 1 (REQ_PRORATION is new
    # at T005) + 1; ACT post states: the five ACT targets' affected requirements, 1 + 2 + 1 + 1 + 1
    assert gold["RQ1 instances"] == gold["RQ3 instances"] == gold["ACT/CLARIFY decisions"] == 6
    assert gold["requirement boundaries"] == gold["pre-request states"] == 7
    assert gold["ACT post-request states"] == 6 and gold["missing information and clarification"] == 1


def test_specpath_families_and_histories_per_condition() -> None:
    out = stats_json("specpath")
    families = table(out, "families")
    # durations/family.yaml: 3 atoms, 1 fixed, 2 decoys, 4 probes; reference.patch: 1 file, +12 -4
    assert families["durations"] == {"atoms": 3, "fixed": 1, "decoys": 2, "probes": 4, "probe tests": 4,
                                     "reference files": 1, "+lines": 12, "-lines": 4, "histories": 7}
    conditions = table(out, "histories per condition")
    assert list(conditions)[:5] == ["direct", "duplicate", "split", "override", "cancellation"]
    # split: one turn per final atom (3); override: the decoy with the two other final atoms, then a turn
    # deactivating it and activating its replacement, in each of the 3 families
    assert conditions["split"]["turns median"] == 3 and conditions["split"]["histories"] == 3
    assert conditions["override"]["activations"] == 12 and conditions["override"]["deactivations"] == 3
    assert conditions["duplicate"]["restatements"] == 9 and conditions["direct"]["turns max"] == 1
    assert conditions["paraphrase-direct"]["kind"] == "control"
    assert out["stats"]["overview"]["families"] == 3


def test_journey_instances_subtasks_and_tests_per_subtask() -> None:
    out = stats_json("journey")
    # tasklet/instance.yaml: 3 stages of 9 subtasks; F2P lists of 4,3,...; 4 common P2P nodes
    assert table(out, "instances")["tasklet"] | {"reference files": 0, "changed lines": 0} == {
        "stages": 3, "subtasks": 9, "F2P nodes": 29, "P2P nodes": 4, "reference files": 0, "changed lines": 0}
    per = table(out, "per instance")
    assert per["subtasks per instance"]["median"] == 9 and per["stages per instance"]["max"] == 3
    assert per["F2P tests per subtask"]["count"] == 9 and per["F2P tests per subtask"]["max"] == 4
    # T1's P2P: the 4 common nodes; T9's: those plus every F2P node of T1-T8 (29 - 4 of T9's own)
    assert per["P2P tests per subtask"]["min"] == 4 and per["P2P tests per subtask"]["max"] == 29


def test_pace_cases_scale_and_code_point_types() -> None:
    out = stats_json("pace")
    cases = table(out, "cases")
    # cachetools-slru/reference.patch: 6 files, +196 -2; case.yaml: 14 Code Points
    assert cases["cachetools-slru"]["files"] == 6 and cases["cachetools-slru"]["changed lines"] == 198
    assert cases["cachetools-slru"]["Code Points"] == 14
    # files per case 12, 6, 11; changed lines 191, 198, 157
    scale = table(out, "scale")
    assert scale["changed files"]["median"] == 11 and scale["changed lines"]["median"] == 191
    types = table(out, "Code Point types")
    # 14 + 16 + 13 Code Points; one `kind: documentation` (cachetools-slru)
    assert sum(row["count"] for row in types.values()) == 43
    assert types["documentation"] == {"count": 1, "share": round(1 / 43, 4)}
    assert table(out, "Code Point provenance")["implicit"]["count"] == 3


def test_tables_print_as_text() -> None:
    proc = reqbench("stats", "demo:takeover")
    assert proc.returncode == 0, proc.stderr
    for text in ("scope (ReqMemBench Table 7)", "history lengths (Table 8)", "gold items (Table 9)",
                 "delivery targets", "45.25"):
        assert text in proc.stdout


def test_a_protocol_without_dataset_statistics_is_bad_input(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 3}])
    proc = reqbench("stats", str(suite))
    assert proc.returncode == 2
    assert "the toy protocol offers no dataset statistics" in proc.stderr


@pytest.mark.parametrize("where", ["missing", "empty"])
def test_a_path_that_is_no_suite_is_bad_input(tmp_path: Path, where: str) -> None:
    path = tmp_path / "suite"
    if where == "empty":
        path.mkdir()
    proc = reqbench("stats", str(path))
    assert proc.returncode == 2 and "error:" in proc.stderr


def test_pace_repository_size_and_prd_length() -> None:
    """PACE-Bench Figure 3: repository size (physical lines of recognized source files of the base) and PRD
    length, counted by hand: ``find base -name '*.py' | xargs cat | wc -l`` (billflow: 33 files, 1,020
    lines; shopcart: 13 ``*.js`` files, 351 lines; cachetools 5.3.3's sdist: 18 files, 2,746 lines, its
    ``*.egg-info`` holds none) and ``wc -m -w prd.md`` (2,957 / 431, 2,621 / 410, 2,606 / 414)."""
    out = stats_json("pace")
    cases = table(out, "cases")
    want = {"cachetools-slru": (18, 2746, 2957, 431), "billflow-credit-notes": (33, 1020, 2621, 410),
            "shopcart-discounts": (13, 351, 2606, 414)}
    got = {case: tuple(row[k] for k in ("repository files", "repository lines", "PRD characters", "PRD words"))
           for case, row in cases.items()}
    assert got == want
    scale = table(out, "scale")
    assert scale["repository lines"]["median"] == 1020 and scale["repository lines"]["count"] == 3
    assert scale["repository lines"]["mean"] == round((2746 + 1020 + 351) / 3, 4)
    assert scale["PRD words"]["median"] == 414 and scale["PRD characters"]["max"] == 2957
    assert out["stats"]["overview"]["median repository lines"] == 1020
