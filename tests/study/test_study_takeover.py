"""A study on the bundled takeover suite (condition C1): complete delivery by configuration and by harness,
each with its Wilson interval over the fixed denominator, and the paired McNemar comparison."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml

from reqbench.core.stats.intervals import wilson
from tests.cli.generic_helpers import reqbench


def test_takeover_delivery_by_configuration_and_harness(tmp_path: Path) -> None:
    spec = tmp_path / "study.yaml"
    spec.write_text(yaml.safe_dump({"suite": "demo:takeover", "conditions": ["C1"], "configurations": [
        {"name": "ref-a", "agent": "reference", "model": "a"}, {"name": "ref-b", "agent": "reference", "model": "b"},
        {"name": "nothing", "agent": "null"}]}))
    out = tmp_path / "study"
    ran = reqbench("study", "run", str(spec), "--out", str(out), "--concurrency", "2", "--quiet", timeout=600)
    assert ran.returncode == 0, ran.stderr
    report = reqbench("study", "report", str(out), "--json", "--pairs")
    assert report.returncode == 0, report.stderr
    tables = {t["title"]: t for t in json.loads(report.stdout)["tables"]}
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

    # a row lost after the run (its attempt gone: unstarted) -> the study shows what the run report shows
    conn = sqlite3.connect(out / "runs" / "ref-a" / "run.sqlite")
    with conn:
        conn.execute("DELETE FROM attempts WHERE row_key = (SELECT min(row_key) FROM attempts)")
    conn.close()
    again = reqbench("study", "report", str(out), "--json")
    run = reqbench("report", str(out / "runs" / "ref-a"), "--json")
    assert again.returncode == 0 and run.returncode == 0, again.stderr + run.stderr
    shown = {t["title"]: t for t in json.loads(again.stdout)["tables"]}
    cell = shown["complete-delivery rate by configuration x condition"]["rows"]["ref-a"]["C1"]
    assert cell == json.loads(run.stdout)["summary"]["headline"]["C1 delivery"]
    assert cell == f"{n - 1}/{n} passed so far, 1 unstarted: no rate yet"
    pooled = shown["complete-delivery rate by harness x condition (pooled over its configurations)"]["rows"]
    assert pooled["reference"]["C1"] == f"{2 * n - 1}/{2 * n} passed so far, 1 unstarted: no rate yet"
