"""`reqbench regrade --timeout-rerun SECONDS` (SpecPath §4.3): rows whose agent timed out run the agent again
once under the larger budget, rows whose verification timed out are verified again under it, both into new
attempts linked to the originals by parent id in a named grading; rows that did not time out are left
alone, and the report says which grading produced each row's number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.agents import registry
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.specpath.suite import PROTOCOL

SLOW_GOOD = '''import time

time.sleep(8)


def tally(words):
    counts = {}
    for w in words:
        w = w.lower()
        counts[w] = counts.get(w, 0) + 1
    return counts
'''

runner = CliRunner()


@pytest.fixture(autouse=True)
def _spy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "spy", ("tests.protocols.specpath.spy_agent", "make_spy"))


def _run(tally_family: Path, run_dir: Path, agent: str, conditions: tuple[str, ...], **opts: object) -> None:
    # a fixed budget well above pytest's own start-up on a loaded machine (a timeout before the test runner
    # started is the harness's, C.2), well below the submission's 8 s import
    options = RunOptions(agent=agent, conditions=conditions, seed=1,
                         agent_options={"specpath.verifier_timeout": "4", "specpath.allow_uncalibrated": "true", **opts})
    meta = RunMeta(suite_path=str(tally_family), protocol="specpath", created=utc_now(), reqbench_version="t",
                   options={"agent": agent, "conditions": list(conditions), "seed": 1,
                            "agent_options": dict(options.agent_options)})
    with RunStore.create(run_dir, meta) as store:
        execute_run(store, PROTOCOL.load(tally_family), options)


def test_a_submission_that_times_out_at_4s_passes_when_rerun_at_30s_in_a_linked_attempt(
        tally_family: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    _run(tally_family, run_dir, "spy", ("override",), write={"src/tally/__init__.py": SLOW_GOOD})
    with RunStore.open(run_dir) as store:
        (row,) = store.plan()
        (first,) = store.attempts(row)
    assert (first.status.value, first.reason, first.result.outcome) == ("scored", "verifier_timeout", "failure")

    result = runner.invoke(app, ["regrade", str(run_dir), "--timeout-rerun", "30", "--label", "rerun-30s"])
    assert result.exit_code == 0, result.output
    assert "1 row(s) re-graded (1 scored" in result.output
    with RunStore.open(run_dir) as store:
        first_again, rerun = store.attempts(row)
        gradings = {g["label"]: g for g in store.gradings()}
    assert first_again == first  # the fixed-budget result stays as it was
    assert (rerun.kind, rerun.parent, rerun.grading) == ("reevaluate", first.attempt_no, "rerun-30s")
    assert (rerun.reason, rerun.result.outcome, rerun.result.signature) == ("passed", "success", [1, 1])
    assert rerun.artifacts["patch"] == first.artifacts["patch"]
    assert "30 s" in gradings["rerun-30s"]["note"] and gradings["rerun-30s"]["checks"]

    # by default the report stays on the fixed-budget (original) grading: never pooled with the re-run
    primary = json.loads(runner.invoke(app, ["report", str(run_dir), "--json"]).output)
    assert (primary["run"]["grading"], primary["run"]["rows_by_grading"]) == ("original", {"original": 1})
    assert primary["specpath"]["FCR by condition (task-macro)"]["override"]["FCR"]["value"] == 0.0
    assert [g["note"] for g in primary["run"]["gradings"]][1] == gradings["rerun-30s"]["note"]
    asked = json.loads(runner.invoke(app, ["report", str(run_dir), "--json", "--grading", "rerun-30s"]).output)
    assert (asked["run"]["grading"], asked["run"]["rows_by_grading"]) == ("rerun-30s", {"rerun-30s": 1})
    assert asked["specpath"]["FCR by condition (task-macro)"]["override"]["FCR"]["value"] == 1.0
    shown = runner.invoke(app, ["report", str(run_dir), "--grading", "rerun-30s"]).output
    assert "grading rerun-30s: 1 of 1 planned rows" in shown
    assert "grading original" in runner.invoke(app, ["report", str(run_dir)]).output


def test_a_timeout_rerun_leaves_rows_that_did_not_time_out_alone(tally_family: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    # a budget no loaded machine exceeds: these rows must not time out for the test to mean anything
    _run(tally_family, run_dir, "reference", ("override", "direct"), **{"specpath.verifier_timeout": "120"})
    result = runner.invoke(app, ["regrade", str(run_dir), "--timeout-rerun", "10"])
    assert result.exit_code == 0, result.output
    assert "0 row(s) re-graded" in result.output and "2 without a timeout" in result.output
    with RunStore.open(run_dir) as store:
        assert [len(store.attempts(row)) for row in store.plan()] == [1, 1]


def test_a_submission_that_loops_forever_is_one_scored_verifier_timeout_never_retried(
        tally_family: Path, tmp_path: Path) -> None:
    loop = "def tally(words):\n    while True:\n        pass\n"
    run_dir = tmp_path / "run"
    _run(tally_family, run_dir, "spy", ("override",), write={"src/tally/__init__.py": loop})
    with RunStore.open(run_dir) as store:
        (row,) = store.plan()
        attempts = store.attempts(row)
        counts = store.counts()
    assert [(a.status.value, a.reason, a.result.outcome) for a in attempts] == [
        ("scored", "verifier_timeout", "failure")]
    assert (counts["scored"], counts["invalid"], counts["pending"], counts["attempts"]) == (1, 0, 0, 1)


GOOD = SLOW_GOOD.replace("import time\n\ntime.sleep(8)\n\n\n", "")


def test_an_agent_timeout_row_runs_the_agent_again_at_the_longer_budget_in_a_named_grading(
        tally_family: Path, tmp_path: Path) -> None:
    """SpecPath §4.3: an agent-timeout record receives one 2,400 s run with the same task, condition,
    configuration and repeat, joined by parent id and never pooled with the 1,200 s results."""
    run_dir, log = tmp_path / "run", tmp_path / "spy.json"
    _run(tally_family, run_dir, "spy", ("override",), write={"src/tally/__init__.py": GOOD},
         needs_seconds="2000", log=str(log), **{"specpath.verifier_timeout": "120"})
    with RunStore.open(run_dir) as store:
        (row,) = store.plan()
        (first,) = store.attempts(row)
    assert (first.status.value, first.reason, first.result.outcome) == ("scored", "agent_timeout", "failure")
    assert json.loads(log.read_text())["budget"] == 1200  # the paper's primary budget

    result = runner.invoke(app, ["regrade", str(run_dir), "--timeout-rerun", "2400", "--label", "rerun-2400"])
    assert result.exit_code == 0, result.output
    assert "1 agent re-run(s) at 2400 s" in result.output
    assert json.loads(log.read_text())["budget"] == 2400
    with RunStore.open(run_dir) as store:
        first_again, rerun = store.attempts(row)
        note = {g["label"]: g for g in store.gradings()}["rerun-2400"]["note"]
    assert first_again == first
    assert (rerun.kind, rerun.parent, rerun.grading) == ("run", first.attempt_no, "rerun-2400")
    assert (rerun.reason, rerun.result.outcome, rerun.result.signature) == ("passed", "success", [1, 1])
    assert "2400 s" in note and "agent_timeout" in note

    again = runner.invoke(app, ["regrade", str(run_dir), "--timeout-rerun", "2400", "--label", "rerun-2400"])
    assert "1 already done" in again.output  # one re-run per row, resumable
    fixed = json.loads(runner.invoke(app, ["report", str(run_dir), "--json", "--grading", "original"]).output)
    assert fixed["run"]["rows_by_grading"] == {"original": 1}
