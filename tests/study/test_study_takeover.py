"""A study on the bundled takeover suite (conditions C1, diag-C1, diag-C2; two reference configurations and the
null agent): complete delivery by configuration and by harness, each with its Wilson interval over the fixed
denominator, the paired McNemar comparison, the gate pass rates and the RQ1-RQ3 tables with their equal-weight
mean over configurations -- and every cell exactly what each run's own report shows, "no rate yet" included."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench.core.stats.intervals import wilson
from tests.cli.generic_helpers import reqbench

pytestmark = pytest.mark.slow  # one whole study, run once for the module

CONFIGS = ("ref-a", "ref-b", "nothing")
GATES = "gate pass rates by configuration x condition (ReqMemBench Table 4)"
RQ_TITLES = {
    "rq1": "RQ1 relevant-information identification (ReqMemBench Table 3, Table 21a) by configuration x condition",
    "rq2": "RQ2 pre-request state reconstruction (ReqMemBench Table 3, Tables 21b-22) by configuration x condition",
    "rq3_decision": "RQ3 ACT/CLARIFY decision (ReqMemBench Table 23) by configuration x condition",
    "rq3_content": "RQ3 post-state and clarification (ReqMemBench Tables 24-26) by configuration x condition",
}


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("takeover-study")
    spec = root / "study.yaml"
    spec.write_text(yaml.safe_dump({"suite": "demo:takeover", "conditions": ["C1", "diag-C1", "diag-C2"],
                                    "configurations": [
                                        {"name": "ref-a", "agent": "reference", "model": "a"},
                                        {"name": "ref-b", "agent": "reference", "model": "b"},
                                        {"name": "nothing", "agent": "null"}]}))
    out = root / "study"
    ran = reqbench("study", "run", str(spec), "--out", str(out), "--concurrency", "2", "--quiet", timeout=600)
    assert ran.returncode == 0, ran.stderr
    return out


def study_tables(out: Path, *flags: str) -> dict[str, dict[str, Any]]:
    shown = reqbench("study", "report", str(out), "--json", *flags)
    assert shown.returncode == 0, shown.stderr
    return {t["title"]: t for t in json.loads(shown.stdout)["tables"]}


def run_report(out: Path, config: str) -> dict[str, Any]:
    """The run's own report of one configuration (`reqbench report runs/<config> --json`): its summary."""
    shown = reqbench("report", str(out / "runs" / config), "--json")
    assert shown.returncode == 0, shown.stderr
    summary: dict[str, Any] = json.loads(shown.stdout)["summary"]
    return summary


def run_tables(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["title"]: t["rows"] for t in summary["tables"]}


def test_takeover_delivery_by_configuration_and_harness(study: Path) -> None:
    tables = study_tables(study, "--pairs")
    by_config = tables["complete-delivery rate by configuration x condition"]
    n = by_config["rows"]["ref-a"]["C1"]["n"]
    assert n >= 1 and "Wilson" in by_config["estimator"]
    assert by_config["rows"]["ref-a"]["C1"] == {"value": 1.0, "ci": list(wilson(n, n)), "n": n}
    assert by_config["rows"]["nothing"]["C1"] == {"value": 0.0, "ci": list(wilson(0, n)), "n": n}
    harness = tables["complete-delivery rate by harness x condition (pooled over its configurations)"]["rows"]
    assert harness["reference"]["C1"] == {"value": 1.0, "ci": list(wilson(2 * n, 2 * n)), "n": 2 * n}
    lines = tables["pairwise comparisons of complete delivery by condition (n = targets)"]["rows"]
    assert set(lines) == {"ref-a - ref-b / C1", "ref-a - nothing / C1", "ref-b - nothing / C1"}
    # n counts targets, one row each here; the bundled suite's 5 targets are too few for any p <= 0.05
    line = lines["ref-a - nothing / C1"]
    assert line["targets"] == n and (line["first only"], line["second only"]) == (n, 0)
    assert line["difference"]["value"] == 1.0 and line["difference"]["n"] == n
    assert line["p"] == ("n too small" if n < 6 else pytest.approx(2 * 0.5 ** n))


def test_gate_and_rq_tables_per_configuration_with_their_equal_weight_mean(study: Path) -> None:
    tables = study_tables(study)
    gates = tables[GATES]["rows"]
    n = gates["ref-a / C1"]["build"]["n"]
    # the reference agent passes every gate of every planned row, the null agent none: 1, 1, 0 -> mean 2/3
    for gate in ("build", "target", "regression", "complete delivery"):
        assert gates["ref-a / C1"][gate] == gates["ref-b / C1"][gate] == {"value": 1.0, "ci": list(wilson(n, n)),
                                                                          "n": n}
        assert gates["nothing / C1"][gate] == {"value": 0.0, "ci": list(wilson(0, n)), "n": n}
        assert gates["equal-weight mean / C1"][gate] == pytest.approx(2 / 3)
    assert "mean over configurations of each configuration's rate" in tables[GATES]["estimator"]
    # RQ1 under C1 only (Table 21a); RQ2 and RQ3 under both histories
    rq1 = tables[RQ_TITLES["rq1"]]["rows"]
    assert set(rq1) == {"ref-a / diag-C1", "ref-b / diag-C1", "nothing / diag-C1", "equal-weight mean / diag-C1"}
    for cond in ("diag-C1", "diag-C2"):
        decision = tables[RQ_TITLES["rq3_decision"]]["rows"]
        assert decision[f"ref-a / {cond}"]["decision_accuracy"] == 1.0
        assert decision[f"nothing / {cond}"]["decision_accuracy"] == 0.0
        assert decision[f"equal-weight mean / {cond}"]["decision_accuracy"] == pytest.approx(2 / 3)
        rq2 = tables[RQ_TITLES["rq2"]]["rows"]
        assert (rq2[f"ref-b / {cond}"]["coverage"], rq2[f"nothing / {cond}"]["coverage"]) == (1.0, 0.0)
        assert rq2[f"equal-weight mean / {cond}"]["coverage"] == pytest.approx(2 / 3)
        assert "n_attribute" not in rq2[f"equal-weight mean / {cond}"]  # a count has no mean
        content = tables[RQ_TITLES["rq3_content"]]["rows"]
        assert content[f"equal-weight mean / {cond}"]["post_state_score"] == pytest.approx(2 / 3)
        # the null agent decides nothing: no correct ACT, its conditional Post-State is N/A, and so is the mean
        assert content[f"nothing / {cond}"]["correct_act_count"] == 0
        assert content[f"nothing / {cond}"]["conditional_post_state"] is None
        assert content[f"equal-weight mean / {cond}"]["conditional_post_state"] is None
    assert rq1["equal-weight mean / diag-C1"]["evidence_recall"] == pytest.approx(2 / 3)
    # every configuration's row is the run's own report row, cell for cell
    for config in CONFIGS:
        run = run_tables(run_report(study, config))
        for part, title in RQ_TITLES.items():
            for cond, row in run[part].items():
                shown = tables[title]["rows"][f"{config} / {cond}"]
                assert shown == {c: row[c] for c in shown}
        for cond, rates in run["delivery"].items():
            assert {g: gates[f"{config} / {cond}"][g]["value"] for g in ("build", "target", "regression")} == \
                {g: rates[g] for g in ("build", "target", "regression")}


def test_a_configuration_without_a_rate_yet_shows_so_and_withholds_the_mean(study: Path, tmp_path: Path) -> None:
    out = tmp_path / "study"
    shutil.copytree(study, out)
    # a C1 row and a diag-C1 row of ref-a lost after the run (their attempts gone: unstarted)
    conn = sqlite3.connect(out / "runs" / "ref-a" / "run.sqlite")
    with conn:
        for cond in ("C1", "diag-C1"):
            conn.execute("DELETE FROM attempts WHERE row_key = (SELECT min(row_key) FROM attempts "
                         "WHERE row_key LIKE ?)", (f"%|{cond}|%",))
    conn.close()
    tables = study_tables(out)
    run = run_report(out, "ref-a")
    n = run_tables(run)["delivery"]["C1"]["n"]
    cell = tables["complete-delivery rate by configuration x condition"]["rows"]["ref-a"]["C1"]
    assert cell == run["headline"]["C1 delivery"] == f"{n - 1}/{n} passed so far, 1 unstarted: no rate yet"
    pooled = tables["complete-delivery rate by harness x condition (pooled over its configurations)"]["rows"]
    assert pooled["reference"]["C1"] == f"{2 * n - 1}/{2 * n} passed so far, 1 unstarted: no rate yet"
    gates = tables[GATES]["rows"]
    assert gates["ref-a / C1"]["build"] == f"{n - 1}/{n} passed so far, 1 unstarted: no rate yet"
    assert gates["ref-b / C1"]["build"]["value"] == 1.0
    assert gates["equal-weight mean / C1"]["build"] == "no rate yet: ref-a has none"
    decision = tables[RQ_TITLES["rq3_decision"]]["rows"]
    assert decision["ref-a / diag-C1"]["decision_accuracy"] == run["headline"]["diag-C1 RQ3 decision acc."] \
        == "1 unstarted: no rate yet"
    assert run_tables(run)["rq3_decision"]["diag-C1"]["decision_accuracy"] is None
    for title in RQ_TITLES.values():
        rows = tables[title]["rows"]
        assert set(rows["ref-a / diag-C1"].values()) - {rows["ref-a / diag-C1"]["judge"]} <= \
            {"1 unstarted: no rate yet"}
        assert set(rows["equal-weight mean / diag-C1"].values()) == {"no rate yet: ref-a has none"}
    # the other history is resolved in every run: its rates and mean stand
    assert decision["equal-weight mean / diag-C2"]["decision_accuracy"] == pytest.approx(2 / 3)
