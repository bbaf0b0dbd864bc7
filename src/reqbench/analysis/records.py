"""The typed records a script or notebook reads from a run: one `RunRow` per planned row (its selected
attempt, its protocol's typed result, its model usage), the run's `Grading`s, and `ModelUsage` as the
model gateway recorded it (never an agent's self-report).

A row's flat fields mean what the columns of ``reqbench export`` mean (`report.rowfacts`;
``reqbench schema run-result-row``); `RunRow.to_record` is exactly that export's row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reqbench.core.execute.settings import ProtocolResult


@dataclass(frozen=True)
class ModelUsage:
    """A row's recorded model calls: counts by source, and the tokens and dollars of the calls sent
    upstream (replayed and refused calls cost nothing again)."""

    calls: int
    upstream: int
    replayed: int
    refused: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    """None when no upstream call had a price."""
    cost_complete: bool
    """False when some upstream call had no price (the cost is then a lower bound)."""
    models: dict[str, int] = field(default_factory=dict)
    """Calls answered per model that answered them."""

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def of(cls, totals: dict[str, Any]) -> ModelUsage:
        """From one row's entry of `StoreRecorder.totals()`."""
        return cls(calls=int(totals["calls"]), upstream=int(totals["upstream"]), replayed=int(totals["replay"]),
                   refused=int(totals["refused"]), prompt_tokens=int(totals["prompt_tokens"]),
                   completion_tokens=int(totals["completion_tokens"]), cost_usd=totals["cost_usd"],
                   cost_complete=bool(totals["cost_complete"]), models=dict(totals.get("models") or {}))


@dataclass(frozen=True)
class Grading:
    """One grading of a run: ``original`` (``reqbench run``) or a ``reqbench regrade`` / ``study rejudge``
    label, with the judge that graded it and whether the checks were run again."""

    label: str
    judge: str
    checks: bool
    created: str
    note: str


@dataclass(frozen=True)
class RunRow:
    """One planned row with its selected attempt (under one grading)."""

    key: str
    """``task|condition|agent|repeat``."""
    task_id: str
    condition: str
    agent: str
    repeat: int
    order_index: int
    """Position of the row in the protocol's plan."""
    status: str
    """scored, pending, invalid or unstarted."""
    outcome: str | None
    """success or failure for a scored row, else the status (one vocabulary for every protocol)."""
    protocol_outcome: str | None
    score: float | None
    reason: str
    """The outcome taxonomy code (`core.execute.reasons.Reason`)."""
    detail: str
    tokens: int | None
    cost_usd: float | None
    seconds: float | None
    attempt_no: int | None
    attempts: int
    grading: str
    """The grading whose attempt this is (``original`` where a regrade left the row alone)."""
    parent_attempt: int | None
    """The attempt a re-graded attempt re-scored."""
    started: str | None
    finished: str | None
    result: ProtocolResult
    """The protocol's typed result, as the run store reads it back (`RunStore.result_model`: the protocol's
    ``result_model``; `OpenResult` when the protocol is not installed here). Fields are attributes:
    ``row.result.final_f2p``."""
    usage: ModelUsage | None
    """The row's recorded model calls (None: it made none)."""
    artifacts: dict[str, str] = field(default_factory=dict)
    """Artifact name -> sha256 in the run's artifact store."""

    def to_record(self) -> dict[str, Any]:
        """The row exactly as ``reqbench export`` writes it (its columns in order; `result` and `artifacts`
        nested, as in JSONL)."""
        return {"row_key": self.key, "task_id": self.task_id, "condition": self.condition, "agent": self.agent,
                "repeat": self.repeat, "order_index": self.order_index, "status": self.status,
                "outcome": self.outcome, "protocol_outcome": self.protocol_outcome, "score": self.score,
                "reason": self.reason, "detail": self.detail, "cost_usd": self.cost_usd, "tokens": self.tokens,
                "seconds": self.seconds, "attempt_no": self.attempt_no, "attempts": self.attempts,
                "grading": self.grading, "parent_attempt": self.parent_attempt, "started": self.started,
                "finished": self.finished, "artifacts": dict(self.artifacts),
                "result": self.result.stored()}

    @classmethod
    def of(cls, record: dict[str, Any], result_model: type[ProtocolResult],
           usage: dict[str, Any] | None) -> RunRow:
        """From one export record (`report.export_rows.records`), the protocol's result model and the row's
        entry of `StoreRecorder.totals()`."""
        fields = {k: v for k, v in record.items() if k not in ("row_key", "result", "artifacts")}
        return cls(key=record["row_key"], **fields, result=result_model.of(record["result"]),
                   usage=None if usage is None else ModelUsage.of(usage), artifacts=dict(record["artifacts"]))
