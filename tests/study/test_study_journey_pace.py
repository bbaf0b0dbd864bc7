"""Studies on the bundled journey and PACE suites: the paper-shaped tables of each protocol, from the
protocol's own summaries, with `reference` (solves everything) and `null` (changes nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.generic_helpers import reqbench

CONFIGS = [{"name": "ref", "agent": "reference"}, {"name": "nothing", "agent": "null"}]


def _study(tmp: Path, suite: str) -> dict[str, Any]:
    spec = tmp / f"{suite}.yaml"
    spec.write_text(yaml.safe_dump({"suite": f"demo:{suite}", "configurations": CONFIGS}))
    out = tmp / suite
    ran = reqbench("study", "run", str(spec), "--out", str(out), "--concurrency", "2", "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stderr
    report = reqbench("study", "report", str(out), "--json", "--pairs")
    assert report.returncode == 0, report.stderr
    return {t["title"]: t for t in json.loads(report.stdout)["tables"]}


@pytest.fixture(scope="module")
def journey(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _study(tmp_path_factory.mktemp("journey"), "journey")


@pytest.fixture(scope="module")
def pace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return _study(tmp_path_factory.mktemp("pace"), "pace")


PERSONAS = ("non-coder", "product-manager", "new-developer", "software-architect")


def test_journey_table_by_configuration_and_persona(journey: dict[str, Any]) -> None:
    table = journey["journey results by configuration x persona"]
    assert "cluster bootstrap over instances" in table["estimator"]
    assert "rule-based simulated user, not the paper's LLM simulator" in table["estimator"]  # the run's caveat
    for persona in PERSONAS:
        ref, nothing = table["rows"][f"ref / {persona}"], table["rows"][f"nothing / {persona}"]
        assert ref["Final F2P"] == {"value": 1.0, "n": 1} and ref["Proc F2P"]["value"] == 1.0
        assert nothing["Final F2P"] == {"value": 0.0, "n": 1} and nothing["Final P2P"]["value"] == 1.0
        assert nothing["Average"]["value"] == 0.5  # (Final F2P + Final P2P) / 2
        assert ref["turns/session"]["value"] >= 1
    ranks = journey["Spearman rho between conditions' rankings of the configurations (Average)"]["rows"]
    assert ranks["non-coder vs software-architect"] == {"rho": None, "p": None, "n": 2}  # rho needs 3


def test_journey_pairs_test_instances_per_condition_and_refuse_a_p_from_one(journey: dict[str, Any]) -> None:
    lines = journey["pairwise comparisons of Final F2P by condition (n = instances)"]["rows"]
    # the bundled suite has one instance: five conditions once made five "pairs" and p = 2 / 2**5
    assert set(lines) == {f"ref - nothing / {c}" for c in (*PERSONAS, "single-shot")}
    for line in lines.values():
        assert line["difference"] == {"value": 1.0, "n": 1} and line["instances"] == 1
        assert line["test"] == "sign-flip" and line["p"] == "n too small"


def test_pace_system_table(pace: dict[str, Any]) -> None:
    table = pace["PACE system table by configuration"]
    assert "1 SE" in table["estimator"] and "Wilson" in table["estimator"]
    ref, nothing = table["rows"]["ref / prd"], table["rows"]["nothing / prd"]
    assert ref["score"] == {"value": 100.0, "ci": [100.0, 100.0], "n": 3}  # n = planned cases
    assert nothing["score"]["value"] == 0.0
    # the bundled suite's judge is the token-overlap heuristic: no success rate is shown from it
    assert ref["success rate"].startswith("withheld") and nothing["success rate"].startswith("withheld")
    assert ref["Missing"] == nothing["Covered"] == 0
    assert ref["Covered"] == nothing["Missing"] > 0 and ref["Partial"] == 0


def test_pace_headline_is_keyed_by_configuration_not_agent(pace: dict[str, Any]) -> None:
    rows = pace["headline by configuration"]["rows"]
    assert rows == {"ref": {"prd score": 100.0}, "nothing": {"prd score": 0.0}}  # one column for both agents
