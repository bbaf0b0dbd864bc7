"""`reqbench export harbor`: a journey suite becomes Harbor tasks in Harbor's layout, SpecPath families one
task per history; Harbor's own `TaskConfig` reads them where its environment is built. The round trip of
every bundled suite is `test_harbor_round_trip`."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.bundled import resolve_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions
from reqbench.core.sandbox import available_isolation
from reqbench.interop.harbor_export import export_suite
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from tests.protocols.harbor.tasks import harbor_task_configs, single_step


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "harbor"
    export_suite(resolve_suite("demo:journey"), out)
    return out


def test_a_journey_instance_becomes_one_multi_step_task(exported: Path) -> None:
    task = exported / "tasklet"
    config = tomllib.loads((task / "task.toml").read_text())
    names = [s["name"] for s in config["steps"]]
    assert names == [f"T{n}" for n in range(1, 10)] and config["multi_step_reward_strategy"] == "final"
    for name in names:
        for part in ("instruction.md", "tests/test.sh", "tests/nodes.json", "solution/solve.sh",
                     "solution/reference.patch"):
            assert (task / "steps" / name / part).is_file(), (name, part)
    last = json.loads((task / "steps" / "T9" / "tests" / "nodes.json").read_text())
    assert len(last["f2p"]) == len(set(last["f2p"])) > 20  # every subtask's F2P by the last step
    assert (task / "tests" / "hidden" / "tests_hidden" / "test_due.py").is_file()
    assert (task / "environment" / "Dockerfile").read_text().startswith("FROM python:3.11\n")  # ships git
    assert "COPY repo/ /app/" in (task / "environment" / "Dockerfile").read_text()
    assert "Acceptance criteria:" in (task / "steps" / "T1" / "instruction.md").read_text()


def test_export_refuses_what_it_cannot_write_and_writes_nothing(tmp_path: Path, exported: Path) -> None:
    with pytest.raises(InputError, match="already exists"):
        export_suite(resolve_suite("demo:journey"), exported)
    import_tasks([single_step(tmp_path / "greet")], tmp_path / "harbor-suite")
    with pytest.raises(InputError, match="not supported"):  # a harbor suite is Harbor tasks already
        export_suite(tmp_path / "harbor-suite", tmp_path / "again")
    assert not (tmp_path / "again").exists()


def test_harbor_reads_every_exported_task(exported: Path) -> None:
    assert harbor_task_configs(sorted(exported.glob("*/task.toml"))) == ["tasklet 9 final"]


def test_cli_export_harbor_keeps_the_run_export(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench", "export", "harbor", "demo:journey", "--out",
                           str(tmp_path / "h")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "h" / "tasklet" / "task.toml").is_file()
    proc = subprocess.run([sys.executable, "-m", "reqbench", "export", str(tmp_path / "nowhere"), "--out",
                           str(tmp_path / "rows.csv")], capture_output=True, text=True)
    assert proc.returncode == 2  # a run directory is still what the plain form takes


def test_specpath_families_become_one_task_per_history(tmp_path: Path) -> None:
    export_suite(resolve_suite("demo:specpath"), tmp_path / "h")
    tasks = sorted(p.name for p in (tmp_path / "h").iterdir())
    assert len(tasks) == 21 and "durations__direct" in tasks  # 3 families x 7 histories
    task = tmp_path / "h" / "durations__direct"
    assert (task / "environment" / "repo" / "SPEC_HISTORY.md").read_text() in (task / "instruction.md").read_text()
    assert json.loads((task / "tests" / "nodes.json").read_text())["all_or_nothing"] is True
    lines = harbor_task_configs([tmp_path / "h" / t / "task.toml" for t in tasks[:2]])
    assert lines == [f"{t} 0 -" for t in tasks[:2]]


@pytest.mark.skipif(available_isolation() != "bwrap", reason="a Harbor verifier needs bubblewrap")
def test_an_exported_specpath_history_scores_reference_1_and_null_0(tmp_path: Path) -> None:
    export_suite(resolve_suite("demo:specpath"), tmp_path / "h")
    import_tasks([tmp_path / "h" / "durations__split"], tmp_path / "suite", host_toolchain=True)
    for agent, expected in (("reference", 1.0), ("null", 0.0)):
        store, _ = run_suite(tmp_path / "suite", RunOptions(agent=agent), tmp_path / agent, resume=False, quiet=True)
        with store:
            (_row, outcome), = list(store.outcomes())
        assert HarborResult.of(outcome.result).reward == expected, agent


def test_export_into_a_folder_that_does_not_exist_yet(tmp_path: Path) -> None:
    out = tmp_path / "runs" / "harbor" / "journey"
    export_suite(resolve_suite("demo:journey"), out)
    assert (out / "tasklet" / "task.toml").is_file()
    assert sorted(p.name for p in out.parent.iterdir()) == ["journey"]  # no build folder left beside it
