"""The agent step's budget in a PACE row: the paper's iteration cap beside the wall-clock budget.

Agent options ``pace.max_steps`` (an integer, or ``none``) is removed before the agent is built; the
wall-clock budget is core's default (`Budget`), capped by ``step_timeout`` like every protocol's.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.agents.base import Budget
from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions

AGENT_ITERATION_LIMIT = 200
"""PACE-Bench, "Experimental Configuration": "Agent iteration limit 200"."""
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
    agent_options = {k: v for k, v in options.agent_options.items() if not k.startswith("pace.")}
    unknown = sorted(k for k in options.agent_options if k.startswith("pace.") and k != MAX_STEPS)
    if unknown:
        raise InputError(f"unknown option; known: {MAX_STEPS}", item=f"--agent-opt {unknown[0]}")
    raw = options.agent_options.get(MAX_STEPS, AGENT_ITERATION_LIMIT)
    if str(raw).strip().lower() == "none":
        return Budget(max_steps=None), agent_options
    try:
        steps = int(raw)
    except (TypeError, ValueError):
        raise InputError("must be a whole number of agent iterations or none", item=f"--agent-opt {MAX_STEPS}") \
            from None
    if steps < 1:
        raise InputError("must be at least 1 (or none)", item=f"--agent-opt {MAX_STEPS}")
    return Budget(max_steps=steps), agent_options
