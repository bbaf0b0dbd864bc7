"""`PaceOptions`: PACE-Bench's run settings (``--agent-opt pace.KEY=VALUE``); none yet beyond the agent's own."""

from __future__ import annotations

from reqbench.core.execute.settings import ProtocolOptions


class PaceOptions(ProtocolOptions):
    """PACE-Bench's run settings (PACE-Bench §4); every other ``--agent-opt`` goes to the agent."""
