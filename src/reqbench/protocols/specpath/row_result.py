"""`SpecpathResult`: the typed row result of a SpecPath row (`RowOutcome.result`), doubling as a results-JSONL
row (`specpath stats`). ``reqbench schema specpath-row-result`` prints it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from reqbench.core.execute.settings import ProtocolResult


class SpecpathResult(ProtocolResult):
    """One SpecPath row: its identity, outcome and probe signature (SpecPath §4.1)."""

    family: str | None = Field(None, description="The contract family.")
    config: str | None = Field(None, description="The configuration (agent) that produced the row.")
    condition: str | None = Field(None, description="The history condition (direct, duplicate, split, ...).")
    repeat: int | None = Field(None, description="The repeat index.")
    outcome: Literal["success", "failure", "invalid", "pending"] | None = Field(
        None, description="success only when every probe of the family passed (FCR numerator, SpecPath §4.1).")
    signature: list[int] | None = Field(None, description="Per-probe pass (1) / fail (0), in the family's "
                                        "probe order; null when the verifier did not run.")
    scaffold: str | None = Field(None, description="The agent scaffold of the configuration.")
    model: str | None = Field(None, description="The model of the configuration (AGENT:MODEL).")
    probes: dict[str, bool] | None = Field(None, description="Probe id -> passed, as the verifier reported.")
