"""`reqbench regrade` re-scores journey sessions for real: from the frozen transcript and the per-turn
snapshots, the hidden tests run again (``--checks``) and the same interaction gives the same scores, in new
attempts linked to the originals."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.bundled import bundled_suite
from reqbench.core.store import RunStore
from reqbench.protocols.journey import online

runner = CliRunner()


def test_regrade_with_checks_reruns_the_hidden_tests_on_every_snapshot_and_gives_the_same_scores(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = runner.invoke(app, ["run", str(bundled_suite("journey")), "--agent", "reference", "--condition",
                              "software-architect", "--out", str(out), "--quiet"])
    assert run.exit_code == 0, run.output[-2000:]
    online._CACHE.runs.clear()  # nothing remembered from the run: every test run below is a real one
    regrade = runner.invoke(app, ["regrade", str(out), "--checks", "--label", "again"])
    assert regrade.exit_code == 0, regrade.output
    assert len(online._CACHE.runs) > 1  # the base and the distinct snapshots were tested again
    with RunStore.open(out) as store:
        (row,) = store.plan()
        first, again = store.attempts(row)
        turns = json.loads(store.to_outcome(first).artifacts["transcript.json"])["turns"]
        snapshots = [n for n in store.to_outcome(again).artifacts if n.endswith(".tar.gz")]
    assert (again.grading, again.parent, again.kind, again.status.value) == ("again", first.attempt_no,
                                                                            "reevaluate", "scored")
    assert again.result == first.result
    assert (again.result.final_f2p, again.result.final_p2p) == (1.0, 1.0)
    assert len(snapshots) == len(turns) > 1
    report = json.loads(runner.invoke(app, ["report", str(out), "--json", "--grading", "again"]).stdout)
    assert report["run"]["grading"] == "again"
    assert json.loads(runner.invoke(app, ["report", str(out), "--json"]).stdout)["run"]["grading"] == "original"
