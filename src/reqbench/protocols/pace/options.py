"""`PaceOptions`: PACE-Bench's run settings (``--agent-opt pace.KEY=VALUE``), validated by
`core.execute.settings`; the agent step's budget is built from them in `budget.agent_budget`."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from reqbench.core.execute.settings import ProtocolOptions

AGENT_ITERATION_LIMIT = 200
"""PACE-Bench, "Experimental Configuration": "Agent iteration limit 200"."""


class PaceOptions(ProtocolOptions):
    """PACE-Bench's run settings (PACE-Bench §4); every other ``--agent-opt`` goes to the agent."""

    max_steps: int | None = Field(AGENT_ITERATION_LIMIT, ge=1, description="The agent step's iteration cap "
                                  "(PACE-Bench: 200); `none` removes it (recorded in the run's options).")

    @field_validator("max_steps", mode="before")
    @classmethod
    def _none(cls, value: Any) -> Any:
        return None if value is None or str(value).strip().lower() == "none" else value
