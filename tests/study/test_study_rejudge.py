"""`reqbench study rejudge`: judging repetitions with fresh judge calls against a scripted model on
127.0.0.1, and the report's execution-vs-judging tables (PACE-Bench Table 11 / Obs. 5) and label audit.

The study: PACE's billflow case alone, the reference agent, two execution repeats, the ``llm:test-model``
judge. The scripted judge labels every criterion covered, except that the n-th time it sees the request
for point CN03 (weight 10 of the case's 94) it answers *partial* when n is odd: the original grading sees
it once (covered), judging repetition k sees it the (k+1)-th time -- partial, covered, partial.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from reqbench.core.bundled import bundled_suite
from tests.cli.generic_helpers import reqbench
from tests.support.gullible import pace_citation, pace_criteria
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply

POINTS = 16
"""billflow's Code Points; L0 closes none of them on the reference patch, so each reaches the judge."""
CN03_SHARE = 10 / 94
"""CN03's weight over the case's total weight (4+8+10+3+6+4+8+6+6+7+8+4+5+8+2+5)."""


class FlakyJudge:
    """Covered for every criterion; CN03's request answered partial on its odd sightings."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()

    def __call__(self, body: dict[str, Any], index: int) -> Reply:
        criteria = pace_criteria(body)
        point = criteria[0]["criterion_id"].split(".")[0]
        sighting = self.seen[point]
        self.seen[point] += 1
        judgment = "partial" if point == "CN03" and sighting % 2 == 1 else "covered"
        cite = pace_citation(body)
        return reply(json.dumps({"evidence_checklist": [
            {"criterion_id": c["criterion_id"], "severity": c["severity"], "judgment": judgment,
             "evidence": "cited", "citations": [cite] if cite else []} for c in criteria]}))


def _suite(tmp: Path) -> Path:
    suite = tmp / "suite"
    shutil.copytree(bundled_suite("pace") / "billflow-credit-notes", suite / "billflow-credit-notes")
    (suite / "suite.yaml").write_text(yaml.safe_dump({"protocol": "pace", "name": "one-case",
                                                      "cases": ["billflow-credit-notes"]}))
    return suite


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("rejudge")
    spec = tmp / "study.yaml"
    spec.write_text(yaml.safe_dump({"suite": str(_suite(tmp)), "repeats": 2, "configurations": [
        {"name": "ref", "agent": "reference", "judge": "llm:test-model"}]}))
    out = tmp / "study"
    judge = FlakyJudge()
    with ScriptedOpenAI(judge) as srv:
        env = {"REQBENCH_BASE_URL": srv.base_url, "REQBENCH_API_KEY": "test", "REQBENCH_CACHE": str(tmp / "c")}
        ran = reqbench("study", "run", str(spec), "--out", str(out), "--quiet", timeout=300, **env)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        one_grading = len(srv.chat_requests)
        rejudged = reqbench("study", "rejudge", str(out), "--times", "3", timeout=300, **env)
        assert rejudged.returncode == 0, rejudged.stdout + rejudged.stderr
        after = len(srv.chat_requests)
        again = reqbench("study", "rejudge", str(out), "--times", "3", "--config", "ref", timeout=300, **env)
        assert again.returncode == 0, again.stdout + again.stderr
        final = len(srv.chat_requests)
    report = reqbench("study", "report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    tables = {t["title"]: t for t in json.loads(report.stdout)["tables"]}
    return {"one": one_grading, "after": after, "final": final, "tables": tables, "out": out,
            "rejudge_stdout": rejudged.stdout, "again_stdout": again.stdout}


def test_rejudge_sends_every_judge_call_again_once_per_repetition(study: dict[str, Any]) -> None:
    # one grading: each point once (repeat 2 judges the same patch: the run's cache answers it)
    assert study["one"] == POINTS
    assert study["after"] - study["one"] == 3 * POINTS
    assert "ref rejudge-3: 2 re-graded (2 scored" in study["rejudge_stdout"]
    # the repetitions exist: asking for them again re-asks nothing
    assert study["final"] == study["after"]
    assert "ref rejudge-1: 0 re-graded" in study["again_stdout"] and "2 already done" in study["again_stdout"]


def test_judging_variation_is_the_hand_computed_spread(study: dict[str, Any]) -> None:
    row = study["tables"]["execution vs judging variation of case score (0-100)"]["rows"]["ref"]
    d = 100 * 0.5 * CN03_SHARE  # CN03 partial: 100 * (94 - 0.5 * 10) / 94 = 100 - d
    # each row's three judging scores: 100 - d, 100, 100 - d -> sample SD d / sqrt(3), range d
    assert row["judging records"] == 3 and row["judging case SD"]["n"] == 2
    assert row["judging case SD"]["value"] == pytest.approx(d / math.sqrt(3)) != 0
    assert row["judging case SD"]["value"] == pytest.approx(3.0710, abs=1e-4)
    assert row["judging case range"]["value"] == pytest.approx(d)
    # the two executions: same patch, judged once (covered): no spread
    assert row["execution records"] == 2 and row["execution case SD"] == {"value": 0.0, "n": 1}
    assert row["SD ratio"] == 0.0


def test_scores_by_record_follow_table_11(study: dict[str, Any]) -> None:
    rows = study["tables"]["case score (0-100) by record"]["rows"]
    partial = 100 * (94 - 0.5 * 10) / 94
    assert rows["ref / run 1"] == {"case score (0-100)": {"value": 100.0, "n": 1}, "complete": "1/1"}
    assert rows["ref / run 2"]["case score (0-100)"]["value"] == 100.0
    assert rows["ref / rejudge-1"]["case score (0-100)"] == {"value": pytest.approx(partial), "n": 2}
    assert rows["ref / rejudge-1"]["complete"] == "0/2"  # 94.68 < 95
    assert rows["ref / rejudge-2"]["complete"] == "2/2"
    assert rows["ref / rejudge-3"]["case score (0-100)"]["value"] == pytest.approx(partial)


def test_label_stability_audit(study: dict[str, Any]) -> None:
    table = study["tables"]["judge label stability across judging repetitions"]
    row = table["rows"]["ref"]
    assert "Missing < Partial < Covered" in table["estimator"]
    # 16 points x 2 rows; CN03 differs in repetition 2 only
    assert row["items"] == 32 and row["pairs"] == 3
    assert row["unanimous"] == pytest.approx(30 / 32)
    assert row["agreement"] == pytest.approx((30 / 32 + 1 + 30 / 32) / 3)
    # pair (1,2): P_o = (30 + 0.5 * 2) / 32 = P_e (rater 2 says Covered throughout) -> kappa 0;
    # pair (1,3): identical labels -> 1; pair (2,3): 0
    assert row["kappa"] == pytest.approx(1 / 3)
    assert row["severe"] == 0.0


def test_rejudge_names_unknown_configurations(study: dict[str, Any]) -> None:
    bad = reqbench("study", "rejudge", str(study["out"]), "--times", "1", "--config", "nope")
    assert bad.returncode == 2 and "no configuration named 'nope'" in bad.stdout + bad.stderr
