"""A protocol written outside reqbench -- the ``toy`` protocol of the installed test plugin (tests/plugin,
found through its ``reqbench.protocols`` entry point) -- gets a study with its own paired value and table,
each configuration's run, report, export and row pages, through the hooks `SuiteProtocol` declares (its
``study`` hook: `reqbench_toy.study`), with nothing under ``src/reqbench`` naming it. Real subprocesses, a
real store, the real viewer on 127.0.0.1."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.generic_helpers import cli_cmd, cli_env, reqbench
from tests.core.toy_protocol import write_suite
from tests.support.viewer_client import logged_in

SRC = Path(__file__).resolve().parents[2] / "src" / "reqbench"
TOY_TABLE = "toy value by configuration x condition"
TASKS = [{"id": "t1", "value": 3}, {"id": "t2", "value": 4}]
"""A toy row's value: the task's value, doubled under condition B (plus the repeat, 0 here)."""


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("toy-study")
    suite = write_suite(tmp / "suite", TASKS)
    spec = tmp / "study.yaml"
    spec.write_text(yaml.safe_dump({"suite": str(suite), "configurations": [
        {"name": "ref", "agent": "reference"}, {"name": "nil", "agent": "null"}]}))
    out = tmp / "study"
    ran = reqbench("study", "run", str(spec), "--out", str(out), "--quiet", timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = reqbench("study", "report", str(out), "--json", "--pairs", "--html", str(tmp / "study.html"))
    assert report.returncode == 0, report.stderr
    return {"out": out, "tmp": tmp, "payload": json.loads(report.stdout)}


def test_nothing_under_src_names_the_plugin_protocol() -> None:
    assert [str(p) for p in SRC.rglob("*.py") if re.search(r"\btoy\b|reqbench_toy", p.read_text())] == []


def test_the_plugins_study_hook_gives_its_table_and_paired_comparisons(study: dict[str, Any]) -> None:
    tables = {t["title"]: t for t in study["payload"]["tables"]}
    assert study["payload"]["study"]["protocol"] == "toy"
    rows = tables[TOY_TABLE]["rows"]
    assert {k: v["mean toy value"]["value"] for k, v in rows.items()} == {
        "ref / A": 3.5, "ref / B": 7.0, "nil / A": 3.5, "nil / B": 7.0}  # the toy ignores its agent
    assert rows["ref / B"]["mean toy value"]["ci"] == [6.0, 8.0] and rows["ref / B"]["mean toy value"]["n"] == 2
    assert tables[TOY_TABLE]["estimator"].startswith("mean toy value over scored rows")
    pairs = tables["pairwise comparisons of toy value by condition (n = tasks)"]["rows"]
    assert {k: v["difference"]["value"] for k, v in pairs.items()} == {"ref - nil / A": 0.0, "ref - nil / B": 0.0}
    html = (study["tmp"] / "study.html").read_text(encoding="utf-8")
    assert f"<h2>{TOY_TABLE}</h2>" in html


def test_each_configuration_is_a_run_the_plugin_reports_and_exports(study: dict[str, Any]) -> None:
    run_dir = study["out"] / "runs" / "ref"
    report = json.loads(reqbench("report", str(run_dir), "--json").stdout)
    assert report["toy"]["scored rows"] == 4
    rows = study["tmp"] / "ref.jsonl"
    assert reqbench("export", str(run_dir), "--out", str(rows)).returncode == 0
    exported = [json.loads(line) for line in rows.read_text().splitlines()]
    assert sorted(r["task_id"] for r in exported) == ["t1", "t1", "t2", "t2"]


def test_the_viewer_shows_the_study_page_and_the_plugins_row_pages(study: dict[str, Any]) -> None:
    proc = subprocess.Popen(cli_cmd("view", str(study["out"]), "--port", "0"), env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", proc.stdout.readline())
        assert url is not None
        client, base = logged_in(url.group(0)), url.group(0).split("/?")[0]
        status, _, page = client.get(base + "/")
        assert status == 200 and b"toy value (task-macro)" in page and TOY_TABLE.encode() in page
        run = re.search(rb'href="(/run/[^"/]*ref[^"/]*/)"', page)
        assert run is not None, page[:2000]
        status, _, run_page = client.get(base + run.group(1).decode())
        link = re.search(rb'<a href="(/run/[^"]+/row\?key=t1[^"]*)">t1</a>', run_page)
        assert status == 200 and b"<h2>toy rows</h2>" in run_page and link is not None
        status, _, row_page = client.get(base + link.group(1).decode())
        assert status == 200 and b"<h3>toy value</h3>" in row_page
    finally:
        proc.terminate()
        proc.wait(timeout=10)
