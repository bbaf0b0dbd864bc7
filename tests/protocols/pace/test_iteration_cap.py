"""The PACE agent step has the paper's iteration cap (PACE-Bench, Experimental Configuration: "Agent
iteration limit 200") beside its wall-clock budget; presets with a turn-cap flag receive it, the others
have their model calls capped at the same count by the gateway."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.agents import registry
from reqbench.core.agents.base import Budget
from reqbench.core.agents.presets import ClaudeCode, MiniSweAgent, OpenHands
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import RowStatus, RunOptions
from reqbench.protocols.pace.budget import AGENT_ITERATION_LIMIT, agent_budget
from reqbench.protocols.pace.suite import PROTOCOL
from tests.protocols.pace.conftest import BILLFLOW


def test_the_default_budget_carries_the_papers_200_iterations() -> None:
    budget, rest = agent_budget(RunOptions(agent_options={"model": "m"}))
    assert AGENT_ITERATION_LIMIT == 200
    assert (budget.max_steps, budget.wall_seconds, rest) == (200, Budget().wall_seconds, {"model": "m"})
    assert agent_budget(RunOptions(agent_options={"pace.max_steps": "50"}))[0].max_steps == 50
    assert agent_budget(RunOptions(agent_options={"pace.max_steps": "none"}))[0].max_steps is None
    for bad in ({"pace.max_steps": "many"}, {"pace.max_steps": "0"}, {"pace.turns": "3"}):
        with pytest.raises(InputError, match="pace"):
            agent_budget(RunOptions(agent_options=bad))


def test_presets_receive_the_cap_on_their_command_line_or_at_the_gateway() -> None:
    budget = Budget(max_steps=200)
    assert ClaudeCode(model="m").call_cap(budget) is None  # --max-turns 200 instead
    assert MiniSweAgent(model="m").call_cap(budget) is None  # step_limit 200 instead
    assert OpenHands(model="m").call_cap(budget) == 200  # no flag: 200 model calls at the gateway
    assert OpenHands(model="m").call_cap(Budget(max_steps=200, max_model_calls=7)) == 7


def test_a_pace_row_hands_the_cap_to_its_agent_and_keeps_pace_options_from_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "spy", ("tests.protocols.specpath.spy_agent", "make_spy"))
    log = tmp_path / "spy.json"
    suite = PROTOCOL.load(BILLFLOW)
    for extra, expected in (({}, 200), ({"pace.max_steps": "12"}, 12)):
        opts = RunOptions(agent="spy", judge="offline", agent_options={"log": str(log), **extra})
        (row,) = suite.plan(opts)
        out = suite.run_row(row, RowContext(opts, tmp_path / str(expected), row))
        assert out.status is RowStatus.SCORED and out.result.score == 0.0  # the spy changes nothing
        assert json.loads(log.read_text())["max_steps"] == expected
