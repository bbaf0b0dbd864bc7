"""`TakeoverOptions`: ReqMemBench's run settings (``--agent-opt takeover.KEY=VALUE``)."""

from __future__ import annotations

from reqbench.core.execute.settings import ProtocolOptions


class TakeoverOptions(ProtocolOptions):
    """ReqMemBench's run settings (§3.1, D.1); every other ``--agent-opt`` goes to the agent."""
