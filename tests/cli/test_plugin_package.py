"""A third-party package (tests/plugin, installed as ``reqbench-toy``) extends reqbench by being installed:
its protocol runs through validate, run, report, export and the viewer, and its agent, judge, schema and
command group appear, with no edit to core, cli or report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core import registry
from reqbench.core.agents.registry import make_agent
from reqbench.core.judges.factory import make_judge
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite


def test_plugin_entries_are_in_the_registry() -> None:
    assert "toy" in registry.names("protocols") and "toy" in registry.names("commands")
    assert "toy-writer" in registry.names("agents") and "toy" in registry.names("judges")
    assert "toy-suite" in registry.names("schemas")
    assert make_agent("toy-writer").name == "toy-writer"
    assert make_judge("toy") is not None


def test_plugin_protocol_runs_end_to_end_through_the_cli(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 3}, {"id": "t2", "value": 4}])
    assert reqbench("validate", str(suite)).returncode == 0
    run_dir = tmp_path / "run"
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(run_dir), "--quiet")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(reqbench("report", str(run_dir), "--json").stdout)
    assert report["toy"]["scored rows"] == 4
    out = tmp_path / "rows.jsonl"
    assert reqbench("export", str(run_dir), "--out", str(out)).returncode == 0
    assert len(out.read_text().splitlines()) == 4
    assert "toy-suite" in reqbench("schema").stdout
    assert reqbench("toy", "hello", "plugin").stdout.strip() == "hello plugin from reqbench-toy"


def test_plugin_protocol_run_is_served_by_the_viewer(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys

    from tests.cli.generic_helpers import cli_cmd, cli_env
    from tests.support.viewer_client import logged_in

    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 3}])
    run_dir = tmp_path / "run"
    assert reqbench("run", str(suite), "--agent", "reference", "--out", str(run_dir), "--quiet").returncode == 0
    proc = subprocess.Popen(cli_cmd("view", str(run_dir), "--port", "0"), env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        url = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", proc.stdout.readline())
        assert url is not None
        client = logged_in(url.group(0))
        status, _, body = client.get(url.group(0))
        assert status == 200 and b"toy" in body
        # the plugin's run view (data) drawn on the run page, its row link leading to the row page, where
        # the plugin's row view shows
        assert b"<h2>toy rows</h2>" in body
        link = re.search(rb'<a href="(/run/[^"]+/row\?key=t1[^"]*)">t1</a>', body)
        assert link is not None
        status, _, row_page = client.get(url.group(0).split("/?")[0] + link.group(1).decode())
        assert status == 200 and b"<h3>toy value</h3>" in row_page and b"<td>3</td>" in row_page
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert sys.executable


@pytest.mark.parametrize("spec", ["tests.plugin_missing:nothing"])
def test_an_unknown_dotted_agent_is_an_input_error(spec: str) -> None:
    from reqbench.core.errors import InputError

    with pytest.raises((InputError, ModuleNotFoundError)):
        make_agent(spec)
