"""The generic commands through the real CLI: exit codes and messages for bad input, report shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reqbench_toy.protocol import marker_dir
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.schemas import SCHEMAS
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite

runner = CliRunner()
TASKS = [{"id": "t1", "value": 1}, {"id": "t2", "value": 3}]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path / "suite", TASKS)


@pytest.fixture(scope="module")
def shared_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run that tests which do not change results share (one subprocess run per worker)."""
    root = tmp_path_factory.mktemp("shared")
    suite = write_suite(root / "suite", TASKS)
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(root / "run"), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root / "run"


def test_validate_prints_every_problem_and_exits_2(tmp_path: Path) -> None:
    bad = write_suite(tmp_path / "bad", [{"value": 1}, {"id": "x", "value": "three"}])
    proc = reqbench("validate", str(bad))
    assert proc.returncode == 2
    assert "task #0: every task needs an id" in proc.stdout
    assert "task 'x': value must be an integer" in proc.stdout
    assert "2 validation problem(s)" in proc.stderr


def test_validate_accepts_a_valid_suite_and_rejects_a_missing_one(suite: Path, tmp_path: Path) -> None:
    assert reqbench("validate", str(suite)).returncode == 0
    missing = reqbench("validate", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such suite directory" in missing.stderr


def test_run_refuses_invalid_suite_before_creating_anything(tmp_path: Path) -> None:
    bad = write_suite(tmp_path / "bad", [{"value": 1}])
    proc = reqbench("run", str(bad), "--agent", "reference", "--out", str(tmp_path / "run"))
    assert proc.returncode == 2
    assert not (tmp_path / "run").exists()


def test_existing_run_needs_resume_and_resume_needs_the_same_options(shared_run: Path) -> None:
    suite, finished_run = shared_run.parent / "suite", shared_run
    again = reqbench("run", str(suite), "--agent", "reference", "--out", str(finished_run))
    assert again.returncode == 2 and "pass --resume" in again.stderr
    changed = reqbench("run", str(suite), "--agent", "reference", "--out", str(finished_run), "--resume",
                       "--seed", "5", "--agent-opt", "timeout=30")
    assert changed.returncode == 2
    assert "seed, agent_options.timeout differ" in changed.stderr.replace("\n", " ")
    same = reqbench("run", str(suite), "--agent", "reference", "--out", str(finished_run), "--resume",
                    "--concurrency", "3", "--quiet")
    assert same.returncode == 0, same.stderr  # concurrency is not part of the run's definition


def test_unwritable_run_directory_exits_2_and_writes_nothing(tmp_path: Path, suite: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(blocker / "a" / "run"))
    assert proc.returncode == 2 and "cannot create the run directory" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "suite"]


def test_ray_executor_without_ray_is_a_clear_error(tmp_path: Path, suite: Path) -> None:
    try:
        import ray  # noqa: F401
        pytest.skip("ray is installed here")
    except ModuleNotFoundError:
        pass
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp_path / "run"),
                    "--executor", "ray")
    assert proc.returncode == 2 and "needs Ray" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_report_json_has_protocol_summary_and_run_counts(shared_run: Path) -> None:
    proc = reqbench("report", str(shared_run), "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert set(payload) == {"toy", "run", "summary"}
    # values: condition A -> value, B -> 2 * value (toy rule); t1=1, t2=3
    assert payload["toy"]["by condition"] == {
        "A": {"rows": 2, "mean value": {"value": 2.0, "ci": [1, 3]}},
        "B": {"rows": 2, "mean value": {"value": 4.0, "ci": [2, 6]}}}
    typed = payload["summary"]  # the same numbers, typed: facts, tables of cells, headline, plots
    assert typed["overview"] == {"scored rows": 4} and typed["headline"] == {"scored rows": 4}
    assert typed["tables"] == [{"title": "by condition", "columns": ["rows", "mean value"], "rows": {
        "A": {"rows": 2, "mean value": {"value": 2.0, "ci": [1, 3]}},
        "B": {"rows": 2, "mean value": {"value": 4.0, "ci": [2, 6]}}}}]
    assert [(p["kind"], p["title"], p["labels"], p["series"], p["ci"]) for p in typed["plots"]] == [
        ("bar", "mean value", ["A", "B"], {"mean value": [2.0, 4.0]}, [[1, 3], [2, 6]])]
    assert payload["run"]["counts"] == {"planned": 4, "scored": 4, "pending": 0, "invalid": 0,
                                        "unstarted": 0, "unfinished": 0, "attempts": 4}
    assert payload["run"]["protocol"] == "toy" and payload["run"]["options"]["agent"] == "reference"


def test_html_report_is_self_contained_and_plots_are_written(shared_run: Path, tmp_path: Path) -> None:
    html, plots = tmp_path / "r.html", tmp_path / "plots"
    proc = reqbench("report", str(shared_run), "--html", str(html), "--plots", str(plots))
    assert proc.returncode == 0, proc.stderr
    assert "mean value" in proc.stdout and "by condition" in proc.stdout
    text = html.read_text()
    assert text.count("data:image/png;base64,") == 1  # the summary's plot of its headline metric
    assert "agent reference" in text and "bubblewrap" in text  # title and provenance header
    assert 'src="http' not in text and "<script" not in text
    assert sorted(p.suffix for p in plots.iterdir()) == [".png"]


def test_export_writes_one_json_line_per_row(shared_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    assert reqbench("export", str(shared_run), "--out", str(out)).returncode == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["task_id"], r["condition"], r["result"]["value"]) for r in rows) == [
        ("t1", "A", 1), ("t1", "B", 2), ("t2", "A", 3), ("t2", "B", 6)]


def test_schema_lists_names_prints_schemas_and_rejects_unknown() -> None:
    listing = runner.invoke(app, ["schema"])
    assert listing.exit_code == 0 and set(listing.stdout.split()) == set(SCHEMAS)
    for name in SCHEMAS:
        known = runner.invoke(app, ["schema", name])
        assert known.exit_code == 0, name
        schema = json.loads(known.stdout)
        assert all("description" in field for field in schema["properties"].values()), name
    unknown = reqbench("schema", "no-such-format")
    assert unknown.returncode == 2 and "run-result-row" in unknown.stderr


@pytest.mark.parametrize("command", ["demo", "validate", "run", "report", "export", "view", "schema"])
def test_every_command_help_shows_an_example(command: str) -> None:
    result = runner.invoke(app, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0 and "Example: reqbench" in result.stdout


def test_demo_runs_each_protocol_demo_and_rerun_continues(tmp_path: Path, suite: Path) -> None:
    first = reqbench("demo", "--out", str(tmp_path / "demo"), "--protocol", "toy", "--verbose",
                     TOY_DEMO_SUITE=str(suite))
    assert first.returncode == 0, first.stderr
    assert "mean value" in first.stdout  # --verbose: every report
    assert (tmp_path / "demo" / "toy-suite-reference" / "run.sqlite").is_file()
    again = reqbench("demo", "--out", str(tmp_path / "demo"), "--protocol", "toy", TOY_DEMO_SUITE=str(suite))
    assert again.returncode == 0, again.stderr
    assert len(list(marker_dir(suite).iterdir())) == 4  # nothing ran twice


def test_demo_without_bundled_suites_says_so(tmp_path: Path) -> None:
    proc = reqbench("demo", "--out", str(tmp_path / "demo"), "--protocol", "toy")
    assert proc.returncode == 0 and "no bundled suites yet" in proc.stdout
