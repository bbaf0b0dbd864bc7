"""A protocol's own run settings: the ``--agent-opt PROTOCOL.KEY=VALUE`` options, typed and validated once.

Each protocol declares an ``options_model`` (a pydantic model, extra keys forbidden, every field with a
description) and, for its rows, a ``result_model``; ``reqbench schema PROTOCOL-options`` and
``PROTOCOL-result`` print them. `split_settings` takes the ``PROTOCOL.``-prefixed keys out of the agent
options, validates them against the model and returns the typed settings plus the agent's own options, so a
typo or an ill-typed value is one clear error naming the key (exit 2) before anything is created
(`check_settings` runs in `core.execute.lanes.plan_lanes`, for a run and every study configuration,
before the run directory exists).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict

from reqbench.core.agents.spec import ProtocolSettings
from reqbench.core.execute.results import OpenResult, ProtocolResult, result_model_of

__all__ = ["OpenResult", "ProtocolOptions", "ProtocolResult", "check_settings", "result_model_of", "split_settings"]

if TYPE_CHECKING:
    from reqbench.core.execute.suite import SuiteProtocol

M = TypeVar("M", bound=BaseModel)


class ProtocolOptions(BaseModel):
    """Base of every protocol's settings: unknown keys are refused, and so are NaN and infinity (option values
    are read as JSON, which spells both)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    def dollar_budget(self) -> float | None:
        """The agent's dollar budget per row these settings give (USD), None when the protocol sets none.
        Preflight refuses a model without a price under it (`core.llm.pricing.unpriced_refusal`)."""
        return None


def split_settings(agent_options: dict[str, Any], protocol: str, model: type[M]) -> tuple[M, dict[str, Any]]:
    """(the protocol's validated settings, the remaining agent options): `core.agents.spec.ProtocolSettings`."""
    prefix = f"{protocol}."
    settings = ProtocolSettings.parse(agent_options).typed(protocol, model)
    return settings, {k: v for k, v in agent_options.items() if not k.startswith(prefix)}


def check_settings(protocol: SuiteProtocol, agent_options: dict[str, Any]) -> float | None:
    """Validate the protocol's prefixed options (nothing when the protocol declares no `options_model`);
    returns the dollar budget per row they give (`ProtocolOptions.dollar_budget`), or None."""
    model = protocol.options_model
    if model is None:
        return None
    settings, _ = split_settings(agent_options, protocol.name, model)
    budget = getattr(settings, "dollar_budget", None)
    return budget() if callable(budget) else None
