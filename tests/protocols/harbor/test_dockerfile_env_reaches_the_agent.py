"""A Dockerfile's ``ENV`` is part of the image Harbor runs every command in (the agent's, ``solve.sh``'s and
``test.sh``'s: ``docker compose exec`` in the task's container), so an imported task gives it to all
three: a sandboxed agent, ``solve.sh`` and the verifier read ``$GREETING``. A task environment's own
variables stay first (its ``PATH`` prefix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.execute.types import RunOptions
from reqbench.core.sandbox.environment import EnvironmentMount
from reqbench.protocols.harbor.agentenv import with_variables
from reqbench.protocols.harbor.importer import import_tasks
from reqbench.protocols.harbor.result import HarborResult
from tests.protocols.harbor.tasks import single_step, write

DOCKERFILE = 'FROM python:3.11-slim\nENV GREETING="hello harbor"\nWORKDIR /app\n'
ENV_TEST = """#!/bin/bash
# the verifier sees ENV too, and the file must hold what the agent read from it
if [ "$GREETING" = "hello harbor" ] && [ "$(cat greeting.txt 2>/dev/null)" = "hello harbor" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""


def _reward(tmp_path: Path, options: RunOptions, host_toolchain: bool = True) -> HarborResult:
    task = write(single_step(tmp_path / "env", dockerfile=DOCKERFILE), {
        "instruction.md": "Write the value of $GREETING (no newline) into greeting.txt.\n",
        "solution/solve.sh": '#!/bin/bash\nprintf %s "$GREETING" > greeting.txt\n', "tests/test.sh": ENV_TEST})
    import_tasks([task], tmp_path / "suite", host_toolchain=host_toolchain)
    store, _ = run_suite(tmp_path / "suite", options, tmp_path / "run", resume=False, quiet=True)
    with store:
        (_row, outcome), = list(store.outcomes())
    return HarborResult.of(outcome.result)


@pytest.mark.parametrize("host_toolchain", [True, False], ids=["host-toolchain", "task-environment"])
def test_the_agent_reads_the_dockerfiles_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, host_toolchain: bool,
                                             require_bwrap: None) -> None:
    """On the host's tools, and in the task's environment (``python:3.11`` -> a venv: the row's overlay)."""
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    template = 'printf %s "$GREETING" > greeting.txt'
    result = _reward(tmp_path, RunOptions(agent="command", agent_options={"template": template}), host_toolchain)
    assert result.reward == 1.0, result.steps


def test_solve_sh_reads_the_dockerfiles_env(tmp_path: Path, require_bwrap: None) -> None:
    assert _reward(tmp_path, RunOptions(agent="reference")).reward == 1.0


@pytest.mark.parametrize("own", [(), (("PATH", "/opt/reqbench-env/python/bin"), ("GREETING", "env's own"))])
def test_the_environments_own_variables_stay_first(own: tuple[tuple[str, str], ...]) -> None:
    mount = EnvironmentMount("k", None, variables=own)
    got = dict(with_variables(mount, {"GREETING": "hello harbor", "PATH": "/task/bin", "LANG": "C"}).variables)
    assert got["LANG"] == "C"
    assert got["GREETING"] == dict(own).get("GREETING", "hello harbor")
    assert got["PATH"] == dict(own).get("PATH", "/task/bin")
