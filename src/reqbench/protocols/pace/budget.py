"""The agent step's budget in a PACE row: the paper's iteration cap beside the wall-clock budget.

Agent options ``pace.max_steps`` (an integer, or ``none``) is removed before the agent is built; the
wall-clock budget is core's default (`Budget`), capped by ``step_timeout`` like every protocol's.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.agents.base import Budget
from reqbench.core.execute.settings import split_settings
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.pace.options import AGENT_ITERATION_LIMIT, PaceOptions

__all__ = ["AGENT_ITERATION_LIMIT", "MAX_STEPS", "agent_budget"]

MAX_STEPS = "pace.max_steps"


def agent_budget(options: RunOptions) -> tuple[Budget, dict[str, Any]]:
    """(the agent step's `Budget`, the agent's own options without ``pace.*``).

    Rule (PACE-Bench, Experimental Configuration table): the common scaffold runs with an agent iteration
    limit of 200. `Budget.max_steps` carries it: presets with a turn cap on their command line receive it
    there (Claude Code ``--max-turns``, mini-swe-agent ``step_limit``, the built-in ``llm`` agent's step
    limit), any other CLI preset (OpenHands, Codex, Aider) has its model calls capped at the same count
    by the run's gateway. A step that runs out is the agent's (``budget_exhausted``), scored on the
    candidate it left. ``--agent-opt pace.max_steps=N`` changes the cap, ``none`` removes it (recorded in
    the run's options)."""
    settings, agent_options = split_settings(options.agent_options, "pace", PaceOptions)
    return Budget(max_steps=settings.max_steps), agent_options
