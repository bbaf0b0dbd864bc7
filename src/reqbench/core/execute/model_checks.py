"""Preflight's model checks: the configuration errors that would otherwise refuse every model call of a run.

A preset's calls pass the run's model gateway, which refuses (HTTP 400) a model without a price under a
dollar budget and a model outside the run's allow-list (`core.llm.gateway.models.ModelPolicy`: the run's
``--model`` and the tool's auxiliary models). The tool then exits, and every row would be the agent's
scored failure (``agent_exit``): a silent 0 for what is the user's configuration. The built-in ``llm``
agent's calls do not pass the gateway, so without this its dollar budget would not be enforced at all.
`check_models` refuses these before the first row (exit 2, nothing created):

1. under a dollar budget (a protocol's, e.g. SpecPath's $0.25 per row: `ProtocolOptions.dollar_budget`), the
   agent's model must have a price (`core.llm.pricing.unpriced_refusal`, at the run's ``--price`` /
   ``--prices``) unless the run passes ``--allow-unpriced``; a preset without ``--model`` would call its
   tool's own default model, whose price the run cannot know, so it needs ``--model`` there too;
2. a preset whose own switches or environment name a model (``extra_args`` ``--model X`` / ``-m X``, an
   ``env`` variable ending in ``_MODEL``) must name one the gateway forwards.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.execute.types import RunOptions
from reqbench.core.llm.pricing import UNPRICED_FIX, RunPricing

MODEL_FLAGS = ("--model", "-m")
"""The switches by which the CLI presets' tools take a model (Claude Code, Aider, OpenHands: ``--model``;
Codex: ``-m``)."""


def check_models(agent: Any, options: RunOptions, dollar_budget: float | None) -> None:
    """`InputError` for an agent whose model calls the gateway (or, for ``llm``, the same rule) would refuse."""
    calls_models = callable(getattr(agent, "upstream", None)) or hasattr(agent, "client")
    if not calls_models:
        return
    model = getattr(agent, "model", None)
    pricing = RunPricing.from_json(options.prices, options.allow_unpriced)
    if model:
        client = getattr(agent, "client", None)
        table = getattr(getattr(client, "config", None), "prices", None)
        refusal = pricing.refusal(str(model), dollar_budget, table if isinstance(table, dict) else None)
        if refusal is not None:
            raise InputError(refusal, item=f"--model {model}")
    elif dollar_budget is not None and not pricing.allow_unpriced:
        raise InputError(f"without --model the tool calls its own default model, whose price the run cannot know, "
                         f"so a dollar budget (${dollar_budget:g} per row) cannot be enforced; name the model with "
                         f"--model and {UNPRICED_FIX}", item=f"--agent {options.agent}")
    policy = getattr(agent, "model_policy", None)
    if model and callable(policy):
        for where, named in models_named(agent):
            refusal = policy().refusal(named)
            if refusal is not None:
                raise InputError(f"the run's model gateway forwards only the run's model and the tool's auxiliary "
                                 f"models, so every call would be refused ({refusal}); name one model, with --model",
                                 item=where)


def models_named(agent: Any) -> list[tuple[str, str]]:
    """``(option, model)`` for each model a preset's own switches or environment name."""
    found: list[tuple[str, str]] = []
    args = [str(a) for a in getattr(agent, "extra_args", None) or []]
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in MODEL_FLAGS and eq:
            found.append((f"--agent-opt extra_args {flag}", value))
        elif arg in MODEL_FLAGS and i + 1 < len(args):
            found.append((f"--agent-opt extra_args {arg}", args[i + 1]))
    env = getattr(agent, "extra_env", None) or {}
    found.extend((f"--agent-opt env {name}", str(value)) for name, value in sorted(env.items())
                 if name.upper().endswith("_MODEL") and value)
    return found
