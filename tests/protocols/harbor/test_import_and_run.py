"""Harbor task folders (written here to Harbor's documented layout) imported and run for real:
`reference` (solve.sh) earns full reward and `null` none, single- and multi-step; `min_reward` stops
early; every field without a meaning here is reported; a bad task writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions
from reqbench.core.sandbox import available_isolation
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from reqbench.protocols.harbor.taskfile import read_task
from tests.protocols.harbor.tasks import harbor_task_configs, multi_step, single_step, write

needs_bwrap = pytest.mark.skipif(available_isolation() != "bwrap",
                                 reason="a Harbor verifier needs bubblewrap (/tests and /logs/verifier)")


def _rewards(suite: Path, agent: str, out: Path) -> dict[str, HarborResult]:
    store, _ = run_suite(suite, RunOptions(agent=agent), out, resume=False, quiet=True)
    with store:
        return {row.task_id: HarborResult.of(o.result) for row, o in store.outcomes()}


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    tasks = [single_step(tmp_path / "greet"), multi_step(tmp_path / "steps", min_reward=1.0, steps=3),
             multi_step(tmp_path / "final", strategy="final")]
    import_tasks(tasks, tmp_path / "suite")
    return tmp_path / "suite"


@needs_bwrap
def test_reference_earns_full_reward_and_null_none(suite: Path, tmp_path: Path) -> None:
    ref = _rewards(suite, "reference", tmp_path / "ref")
    assert {k: r.reward for k, r in ref.items()} == {"greet": 1.0, "steps": 1.0, "final": 1.0}
    assert [s.name for s in ref["steps"].steps] == ["step-1", "step-2", "step-3"]
    assert ref["steps"].rewards == {"reward": 1.0, "lines": 2.0}  # mean of 1, 2, 3 lines
    null = _rewards(suite, "null", tmp_path / "null")
    assert {k: r.reward for k, r in null.items()} == {"greet": 0.0, "steps": 0.0, "final": 0.0}
    assert [s.name for s in null["steps"].steps] == ["step-1"]  # min_reward stopped the rest
    assert null["steps"].steps[0].stopped == "reward=0.0 below min_reward 1.0"
    assert len(null["final"].steps) == 2  # no min_reward: every step runs


def test_fields_without_a_meaning_are_reported_one_line_each(tmp_path: Path) -> None:
    task = single_step(tmp_path / "t", toml_extra='[agent]\nnetwork_mode = "public"\n')
    text = (task / "task.toml").read_text().replace("[agent]\ntimeout_sec", "[agentx]\ntimeout_sec")
    (task / "task.toml").write_text(text.replace("build_timeout_sec = 600.0", "cpus = 2\ngpus = 1"))
    lines = import_tasks([task], tmp_path / "suite")
    assert "t: agent.network_mode = 'public': rows run offline (the agent reaches only the model gateway); " \
           "only no-network is honoured exactly" in lines
    assert "t: environment.cpus = 2: no CPU quota per row" in lines
    assert "t: environment.gpus = 1: no GPUs" in lines
    assert any(line.startswith("t: agentx.timeout_sec = 120.0: not used") for line in lines)


def test_a_bad_task_is_one_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    good = single_step(tmp_path / "good")
    bad = multi_step(tmp_path / "bad")
    (bad / "steps" / "step-2" / "instruction.md").unlink()
    proc = subprocess.run([sys.executable, "-m", "reqbench", "import", "harbor", str(good), str(bad),
                           "--out", str(tmp_path / "suite")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "step-2" in proc.stderr and "instruction.md" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "good"]


@needs_bwrap
def test_workdir_and_copied_context_files_reach_solution_and_verifier(tmp_path: Path) -> None:
    """``COPY app/ /srv/app/`` + ``WORKDIR /srv/app``: the workspace starts with the copied files, and solve.sh
    and test.sh see it at /srv/app (with the agent's changes), as in the image."""
    task = single_step(tmp_path / "t", dockerfile="FROM debian:bookworm\nCOPY app/ /srv/app/\nWORKDIR /srv/app\n")
    write(task, {"environment/app/seed.txt": "seed\n",
                 "solution/solve.sh": "#!/bin/bash\ncd /srv/app && cat seed.txt > copied.txt\n",
                 "tests/test.sh": "#!/bin/bash\n[ \"$PWD\" = /srv/app ] && cmp -s seed.txt copied.txt "
                                  "&& echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"})
    lines = import_tasks([task], tmp_path / "suite", host_toolchain=True)
    assert lines == ["t: environment.build_timeout_sec = 600.0: environments build once, before any row",
                     "t: environment/ not built (--host-toolchain): runs on the host toolchain"]
    assert _rewards(tmp_path / "suite", "reference", tmp_path / "ref")["t"].reward == 1.0
    assert _rewards(tmp_path / "suite", "null", tmp_path / "null")["t"].reward == 0.0


@needs_bwrap
def test_a_task_with_an_environment_runs_from_the_command_line(tmp_path: Path) -> None:
    """The import writes the block; ``reqbench run`` builds it before any row and runs the task in it."""
    task = single_step(tmp_path / "t", dockerfile="FROM python:3.11-slim\nRUN pip install tomli-w==1.0.0\n")
    import_tasks([task], tmp_path / "suite")
    assert (tmp_path / "suite" / "tasks" / "t" / "environment.yaml").read_text() == (
        "environment:\n  python:\n    interpreter: '3.11'\n    requirements:\n    - tomli-w==1.0.0\n")
    proc = subprocess.run([sys.executable, "-m", "reqbench", "run", str(tmp_path / "suite"), "--agent", "reference",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True,
                          env={**os.environ, "REQBENCH_CACHE": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in (tmp_path / "cache" / "environments").iterdir() if not p.name.startswith(".")]
    from reqbench.core.store import RunStore

    with RunStore.open(tmp_path / "run", read_only=True) as store:
        assert [HarborResult.of(o.result).reward for _r, o in store.outcomes()] == [1.0]


def test_harbor_reads_the_tasks_these_tests_write(tmp_path: Path) -> None:
    tasks = [single_step(tmp_path / "greet"), multi_step(tmp_path / "steps", min_reward=1.0),
             multi_step(tmp_path / "final", strategy="final")]
    assert harbor_task_configs([t / "task.toml" for t in tasks]) == ["greet 0 -", "steps 2 mean", "final 2 final"]


@needs_bwrap
def test_a_real_agent_gets_each_steps_instruction_in_one_workspace(tmp_path: Path) -> None:
    """A sandboxed `command` agent follows each step's instruction (append `N`): every step passes, so the
    workspace persisted across steps and each step saw its own instruction."""
    import_tasks([multi_step(tmp_path / "steps", min_reward=1.0, steps=3)], tmp_path / "suite")
    template = "grep -o '`[0-9]`' {prompt_file} | tr -d '`' >> counter.txt"
    store, _ = run_suite(tmp_path / "suite", RunOptions(agent="command", agent_options={"template": template}),
                         tmp_path / "run", resume=False, quiet=True)
    with store:
        (_row, outcome), = list(store.outcomes())
    result = HarborResult.of(outcome.result)
    assert [s.rewards for s in result.steps] == [{"reward": 1.0, "lines": float(n)} for n in (1, 2, 3)]
    assert result.reward == 1.0


@needs_bwrap
def test_the_export_carries_each_rows_reward_as_its_score(suite: Path, tmp_path: Path) -> None:
    from reqbench.core.store import RunStore
    from reqbench.report.export_rows import records

    _rewards(suite, "null", tmp_path / "null")
    with RunStore.open(tmp_path / "null", read_only=True) as store:
        rows = {r["task_id"]: r for r in records(store)}
    assert {t: r["score"] for t, r in rows.items()} == {"greet": 0.0, "steps": 0.0, "final": 0.0}
    assert rows["steps"]["detail"].startswith("reward=0.0 below min_reward 1.0")


@pytest.mark.parametrize("value", ["nan", "inf", "-5.0", "0"])
def test_a_timeout_that_is_not_a_positive_finite_number_is_refused(tmp_path: Path, value: str) -> None:
    """TOML spells nan and inf: neither is a timeout, and a NaN one would pass every limit check."""
    task = single_step(tmp_path / "t")
    (task / "task.toml").write_text((task / "task.toml").read_text().replace(
        "[agent]\ntimeout_sec = 120.0", f"[agent]\ntimeout_sec = {value}"))
    with pytest.raises(InputError) as caught:
        read_task(task)
    assert caught.value.rule == "must be a positive number of seconds" and "timeout_sec" in str(caught.value.item)


@pytest.mark.parametrize("gate", ["nan", "inf", "{ reward = nan }"])
def test_a_min_reward_gate_that_is_not_finite_is_refused(tmp_path: Path, gate: str) -> None:
    """A NaN gate would stop every later step (every comparison with NaN is false)."""
    task = multi_step(tmp_path / "t", min_reward=0.5)
    toml = task / "task.toml"
    assert "min_reward = 0.5" in toml.read_text()
    toml.write_text(toml.read_text().replace("min_reward = 0.5", f"min_reward = {gate}"))
    with pytest.raises(InputError) as caught:
        read_task(task)
    assert caught.value.rule == "must be a finite number or a table of finite numbers"
