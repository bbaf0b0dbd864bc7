"""An agent option the agent does not declare is refused before anything is created (exit 2), with the closest
known option: control agents too (they used to accept anything and ignore it), core's ``step_timeout``
among the suggestions, and the ``llm`` agent's own options next to its model client's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.generic_helpers import reqbench
from tests.study.helpers import write_study


@pytest.mark.parametrize(("agent", "option", "said"), [
    (["--agent", "reference"], "tmeplate=x", "unknown option 'tmeplate' for agent 'reference'"),
    (["--agent", "null"], "step_timout=5", "(did you mean 'step_timeout'?)"),
    (["--agent", "llm", "--model", "m"], "temprature=0.5", "(did you mean 'temperature'?)"),
    (["--agent", "command", "--agent-opt", "template=true"], "tmeout=3", "(did you mean 'timeout'"),
])
def test_an_undeclared_agent_option_exits_2_with_did_you_mean_and_creates_nothing(
        tmp_path: Path, agent: list[str], option: str, said: str) -> None:
    out = tmp_path / "run"
    proc = reqbench("run", "demo:specpath", *agent, "--agent-opt", option, "--out", str(out), "--quiet")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    message = " ".join(proc.stderr.split())
    assert f"--agent-opt {option.split('=')[0]}" in message and said in message
    assert not out.exists()


def test_a_declared_option_and_step_timeout_still_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = reqbench("run", "demo:specpath/slugkit", "--agent", "null", "--condition", "direct", "--agent-opt",
                    "step_timeout=60", "--agent-opt", "model=label", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_study_configuration_with_an_undeclared_option_is_refused_naming_it(tmp_path: Path) -> None:
    spec = write_study(tmp_path / "s.yaml", [{"name": "ref", "agent": "reference", "agent_opts": {"tmeplate": "x"}}])
    proc = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    message = " ".join(proc.stderr.split())
    assert "configuration 'ref'" in message and "unknown option 'tmeplate' for agent 'reference'" in message
    assert not (tmp_path / "out").exists()


def test_a_mistyped_protocol_option_names_the_closest_one(tmp_path: Path) -> None:
    proc = reqbench("run", "demo:specpath", "--agent", "reference", "--agent-opt", "specpath.agent_timout=3",
                    "--out", str(tmp_path / "run"))
    assert proc.returncode == 2
    assert "(did you mean 'specpath.agent_timeout'" in " ".join(proc.stderr.split())
