"""`SpecpathResult`: the typed row result of a SpecPath row (`RowOutcome.result`), doubling as a results-JSONL
row (`specpath stats`). ``reqbench schema specpath-row-result`` prints it."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from reqbench.core.execute.settings import ProtocolResult


class SpecpathResult(ProtocolResult):
    """One SpecPath row: its identity, outcome and probe signature (SpecPath §4.1)."""

    family: str | None = Field(default=None, description="The contract family.")
    config: str | None = Field(default=None, description="The configuration (agent) that produced the row.")
    condition: str | None = Field(default=None, description="The history condition (direct, duplicate, split, ...).")
    repeat: int | None = Field(default=None, description="The repeat index.")
    outcome: Literal["success", "failure", "invalid", "pending"] | None = Field(
        None, description="success only when every probe of the family passed (FCR numerator, SpecPath §4.1).")
    signature: list[int] | None = Field(default=None, description="Per-probe pass (1) / fail (0), in the family's "
                                        "probe order; null when the verifier did not run.")
    scaffold: str | None = Field(default=None, description="The agent scaffold of the configuration.")
    model: str | None = Field(default=None, description="The model of the configuration (AGENT:MODEL).")
    probes: dict[str, bool] | None = Field(default=None, description="Probe id -> passed, as the verifier reported.")
    history_sha256: str | None = Field(default=None, description="sha256 of the rendered history file the agent got.")
    timings: dict[str, float] | None = Field(default=None, description="Seconds per stage of the row (setup, agent, "
                                             "diff, verify_setup, verify).")
    cost_limit_usd: float | None = Field(default=None, description="The agent's dollar budget for the row (null: "
                                         "none).")
    agent_status: str | None = Field(default=None, description="How the agent's step ended (its adapter's status).")
    cost_usd: float | None = Field(default=None, description="The agent's own reported cost (USD), when priced.")
    agent_seconds: float | None = Field(default=None, description="The agent's wall-clock seconds.")
    workspace_rejected: dict[str, str] | None = Field(default=None, description="Why the agent's workspace could "
                                                      "not be delivered: reason and the limit it broke.")
    skipped: list[str] | None = Field(default=None, description="Workspace entries left out of the submission "
                                      "(not regular files).")
    patch_sha256: str | None = Field(default=None, description="sha256 of the frozen submission (artifact patch).")
    verifier_seconds: float | None = Field(default=None, description="Wall-clock seconds of the verifier run.")

    def row_label(self) -> str | None:
        return self.outcome

    def row_score(self) -> float | None:
        return {"success": 1.0, "failure": 0.0}.get(self.outcome or "")

    def row_prose(self) -> str | None:
        return self.reason

    def row_seconds(self) -> float | None:
        return self.agent_seconds
