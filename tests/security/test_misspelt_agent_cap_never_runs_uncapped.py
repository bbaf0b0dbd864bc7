"""A misspelt agent option never runs the agent as if it were not given: ``--agent-opt step_timout=5`` (the
wall-clock cap on every agent step) or an option a control agent does not take is refused before anything
is created (exit 2), naming the option the user meant. Before, control agents accepted any option and the run
went ahead uncapped with exit 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.generic_helpers import reqbench


@pytest.mark.parametrize("agent", ["null", "reference"])
def test_a_misspelt_step_cap_is_refused_before_the_run_starts(tmp_path: Path, agent: str) -> None:
    out = tmp_path / "run"
    proc = reqbench("run", "demo:specpath/slugkit", "--agent", agent, "--condition", "direct", "--agent-opt",
                    "step_timout=5", "--out", str(out), "--quiet")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "did you mean 'step_timeout'?" in " ".join(proc.stderr.split())
    assert not out.exists()
