"""Every protocol's report carries the provenance header and the attrition-by-reason table (issue: run
processing, "Done means"): the bundled example of each protocol, run with the `null` control, reported
in the terminal and as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.bundled import bundled_suite

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

runner = CliRunner()
CONDITION = {"specpath": "direct", "journey": "single-shot", "pace": "prd", "takeover": "C1"}
"""One quick condition per protocol."""


@pytest.mark.parametrize("protocol", sorted(CONDITION))
def test_the_report_has_the_provenance_header_and_the_attrition_table(protocol: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = runner.invoke(app, ["run", str(bundled_suite(protocol)), "--agent", "null", "--condition",
                              CONDITION[protocol], "--out", str(out), "--quiet"])
    assert run.exit_code == 0, run.output[-2000:]
    payload = json.loads(runner.invoke(app, ["report", str(out), "--json"]).stdout)["run"]
    planned = payload["counts"]["planned"]
    assert planned > 0 and payload["attrition"]["all"]["rows"] == planned
    assert payload["options"]["agent"] == "null" and payload["protocol"] == protocol
    assert len(payload["provenance"]["suite_hash"]) >= 16
    text = runner.invoke(app, ["report", str(out)], terminal_width=200).stdout
    for fact in ("suite hash", "agent program", "judge", "repeats / seed", "sandbox", "attrition by reason"):
        assert fact in text, (protocol, fact)
    html = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(out), "--html", str(html)]).exit_code == 0
    page = html.read_text(encoding="utf-8")
    # the protocol's run-wide view (its `run_view` blocks): SpecPath's probe raster, one line per row (the
    # null agent ran no probe: its reason instead), row references as text (the report is one file); the
    # other three declare none
    assert ("Probe signature raster" in page) == (protocol == "specpath")
    assert page.count("|null|0</td><td><span class=\"meta\">empty_submission</span>") == (
        planned if protocol == "specpath" else 0)
    assert '<a href="/run/' not in page
