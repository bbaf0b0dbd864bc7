"""Proof with Harbor's own code (the real wheel, in the Python 3.13 environment `harbor_python` builds with
reqbench's environments feature): Harbor's task loader (`harbor.models.task.task.Task`: its `TaskConfig`,
path containment and test checks) loads every task exported from every bundled suite; and the template task
shipped inside Harbor's wheel imports, and running it ends in a "no reward written" verdict, never a pass.

Slow: the first run on a machine builds the environment (about two minutes, then cached by key)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.bundled import bundled_names, resolve_suite
from reqbench.core.execute.reasons import Reason
from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.interop.harbor_export import export_suite
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from reqbench.protocols.harbor.rewards import NO_REWARD
from tests.interop.harbor_python import harbor_package, harbor_run

LOAD = """import sys
from harbor.models.task.task import Task
for path in sys.argv[1:]:
    task = Task(path)
    steps, strategy = task.config.steps or [], task.config.multi_step_reward_strategy
    tests = [task.paths.step_tests_dir(s.name) / "test.sh" for s in steps] or [task.paths.test_path]
    print(task.name, len(steps), strategy.value if strategy else "-",
          bool(task.instruction or steps), all(t.is_file() for t in tests))
"""
EXPECTED_TASKS = {"journey": 1, "specpath": 21, "pace": 3, "takeover": 5}


@pytest.mark.slow
@pytest.mark.parametrize("name", bundled_names())
def test_harbor_loads_every_exported_task(name: str, tmp_path: Path) -> None:
    export_suite(resolve_suite(f"demo:{name}"), tmp_path / "harbor")
    tasks = sorted(p.resolve() for p in (tmp_path / "harbor").iterdir())
    proc = harbor_run(LOAD, [str(t) for t in tasks], binds=[(tmp_path / "harbor").resolve()], build=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [line.split() for line in proc.stdout.splitlines()]
    assert [line[0] for line in lines] == [t.name for t in tasks]
    assert len(lines) == EXPECTED_TASKS[name]
    assert all(line[3:] == ["True", "True"] for line in lines), lines
    if name == "journey":
        assert lines[0][1:3] == ["9", "final"]


@pytest.mark.slow
def test_harbors_template_task_imports_and_ends_without_a_reward(tmp_path: Path, require_bwrap: None) -> None:
    template = shutil.copytree(harbor_package(build=True) / "cli" / "template-task", tmp_path / "template-task")
    notes = import_tasks([template], tmp_path / "suite")  # its ubuntu image needs a container engine to run
    assert any("environment.build_timeout_sec" in n for n in notes)
    assert any("needs a container engine" in n for n in notes), notes
    import_tasks([template], tmp_path / "host", host_toolchain=True)
    for agent in ("reference", "null"):
        store, loaded = run_suite(tmp_path / "host", RunOptions(agent=agent), tmp_path / agent, resume=False,
                                  quiet=True)
        with store:
            outcomes = list(store.outcomes())
            summary = loaded.summarize(outcomes)
        (_row, outcome), = outcomes
        result = HarborResult.of(outcome.result)
        assert outcome.status is RowStatus.SCORED and outcome.reason is not Reason.PASSED
        assert result.verdict == NO_REWARD and result.reward == 0.0 and result.rewards is None
        assert outcome.detail.startswith(f"{NO_REWARD}: task: {NO_REWARD}"), outcome.detail
        assert summary.overview["rows without a reward"] == 1
