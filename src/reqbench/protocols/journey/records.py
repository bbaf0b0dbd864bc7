"""What a journey session records: its limits, one `TurnRecord` per assistant turn, the `SessionRecord`.

A record is the whole frozen interaction: every turn's message, reply, diff, hidden-test results and the
simulated user's reaction. It round-trips through JSON (`SessionRecord.to_dict` / `from_dict`, the
``transcript.json`` artifact plus the per-turn diffs), so a stored session can be re-scored (new judge,
re-run checks) without asking the assistant or the simulator anything again (`rescore`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from reqbench.core.agents.base import Usage
from reqbench.protocols.journey.history import Watermarks


@dataclass(frozen=True)
class SessionLimits:
    max_turns: int = 40
    """Shared turn limit: assistant turns (each answering one user message)."""
    max_steps_per_turn: int = 250
    wall_seconds_per_turn: float | None = 1800.0
    watermarks: Watermarks = Watermarks()


@dataclass
class TurnRecord:
    index: int
    user_message: str
    disclosed: list[str]
    active: list[str]
    """Subtasks active (mentioned, not accepted) when the user message was sent."""
    stage: int
    reply: str
    status: str
    usage: dict[str, Any]
    steps: int
    diff: str
    changed_files: list[str]
    probes: dict[str, bool]
    tree: str
    retried_overflow: bool = False
    reasoning: str = ""
    workspace_rejected: str = ""
    """Why the workspace could not be taken after this turn (over a limit, unreadable): the turn then
    counts as no change (empty diff, the previous snapshot's test results)."""
    confidence_after: int | None = None
    statuses_after: dict[str, str] = field(default_factory=dict)
    user_notes: dict[str, Any] = field(default_factory=dict)


@dataclass
class SessionRecord:
    instance: str
    condition: str
    mode: str
    """``interactive`` or ``single-shot``."""
    base_probes: dict[str, bool]
    turns: list[TurnRecord] = field(default_factory=list)
    end_reason: str = ""
    final_message: str = ""
    stage_exit_turn: dict[int, int] = field(default_factory=dict)
    """Stage index -> index of the turn whose test results count for Proc. F2P (0 = the base)."""
    assistant_usage: Usage = field(default_factory=Usage)
    simulator_usage: Usage = field(default_factory=Usage)
    initial_confidence: int | None = None
    final_diff: str = ""
    end_detail: str = ""
    """Why the harness ended the session when ``end_reason`` is `HARNESS_ENDED`."""
    invalid_reason: str = ""
    """The `core.execute.outcomes.Reason` of an agent step the harness failed (a provider or launcher
    failure it recorded): the session ended there and the row is invalid (`core.execute.verdict`)."""
    snapshots: dict[int, bytes] = field(default_factory=dict, repr=False)
    """Turn index -> the workspace snapshot after that turn, packed (`checkpoints.pack_tree`)."""
    user_turns: list[dict[str, Any]] = field(default_factory=list, repr=False)
    """Every reaction of the simulated user with its matching key (`frozen_user`); kept as its own
    artifact, not in the transcript."""

    def probes_at(self, turn: int) -> dict[str, bool]:
        return self.base_probes if turn == 0 else self.turns[turn - 1].probes

    @property
    def final_probes(self) -> dict[str, bool]:
        return self.probes_at(len(self.turns))

    def to_dict(self, with_diffs: bool = True) -> dict[str, Any]:
        turns = []
        for t in self.turns:
            d = asdict(t)
            if not with_diffs:
                d.pop("diff")
            turns.append(d)
        return {"instance": self.instance, "condition": self.condition, "mode": self.mode,
                "end_reason": self.end_reason, "final_message": self.final_message,
                "invalid_reason": self.invalid_reason,
                "stage_exit_turn": {str(k): v for k, v in self.stage_exit_turn.items()},
                "assistant_usage": self.assistant_usage.to_dict(),
                "simulator_usage": self.simulator_usage.to_dict(),
                "initial_confidence": self.initial_confidence, "base_probes": self.base_probes,
                "turns": turns}

    @classmethod
    def from_dict(cls, data: dict[str, Any], diffs: dict[int, str] | None = None,
                  final_diff: str = "") -> SessionRecord:
        """The record `to_dict` wrote; `diffs` (turn index -> diff) fills turns stored without theirs."""
        names = {f.name for f in fields(TurnRecord)}
        turns = []
        for t in data.get("turns", []):
            item = {k: v for k, v in t.items() if k in names}
            item.setdefault("diff", (diffs or {}).get(int(t["index"]), ""))
            turns.append(TurnRecord(**item))
        return cls(instance=data["instance"], condition=data["condition"], mode=data["mode"],
                   base_probes=dict(data["base_probes"]), turns=turns, end_reason=data.get("end_reason", ""),
                   final_message=data.get("final_message", ""), invalid_reason=data.get("invalid_reason", ""),
                   stage_exit_turn={int(k): int(v) for k, v in data.get("stage_exit_turn", {}).items()},
                   assistant_usage=Usage(**data.get("assistant_usage", {})),
                   simulator_usage=Usage(**data.get("simulator_usage", {})),
                   initial_confidence=data.get("initial_confidence"), final_diff=final_diff)
