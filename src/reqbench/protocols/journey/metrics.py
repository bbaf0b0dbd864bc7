"""Session metrics (SWE-Journey §3.4, B.1, B.2). One function per metric; each docstring is its definition.

All pass rates are fractions in [0, 1] over test *nodes*. `None` means "not applicable" (an empty node set,
or Proc. F2P in single-shot mode) and is left out of means, never counted as 0 or 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean
from typing import Any

from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.session import SessionRecord


def _rate(probes: dict[str, bool], nodes: list[str]) -> float | None:
    if not nodes:
        return None
    return sum(1 for n in nodes if probes.get(n, False)) / len(nodes)


def proc_f2p(record: SessionRecord, instance: Instance) -> float | None:
    """Proc. F2P (§3.4): stage completion at the moment the session moves past each stage.

    For every stage, its F2P nodes (the union of its subtasks' F2P nodes) are evaluated on the snapshot
    taken after the last assistant turn before the user first brings up a subtask of a later stage; a stage
    the session never moves past is evaluated at the session's end. The metric pools the nodes of all
    stages: passing stage-F2P nodes / all stage-F2P nodes. Not applicable (None) in single-shot mode.
    """
    if record.mode != "interactive":
        return None
    passed = total = 0
    for s in range(len(instance.spec.stages)):
        nodes = instance.stage_f2p(s)
        probes = record.probes_at(record.stage_exit_turn.get(s, len(record.turns)))
        passed += sum(1 for n in nodes if probes.get(n, False))
        total += len(nodes)
    return passed / total if total else None


def final_f2p(record: SessionRecord, instance: Instance) -> float | None:
    """Final F2P (§3.4): fraction of the whole-task F2P nodes (A.4) passing on the final workspace."""
    return _rate(record.final_probes, instance.whole_f2p)


def final_p2p(record: SessionRecord, instance: Instance) -> float | None:
    """Final P2P (§3.4): fraction of the whole-task P2P nodes (behaviour the base already had, A.4)
    still passing on the final workspace -- retained functionality; regressions lower it."""
    return _rate(record.final_probes, instance.whole_p2p)


def turns_per_session(record: SessionRecord) -> int:
    """Turn/Session (§3.4, B.1): realized interaction length -- the number of assistant turns, each
    answering one user message. The closing user message that ends a session is not a turn."""
    return len(record.turns)


def cost_per_session(record: SessionRecord) -> float | None:
    """Cost/Session (B.1): the assistant's estimated cost in USD; simulator tokens are excluded.
    None when the assistant reported tokens but no price."""
    return record.assistant_usage.cost_usd


def final_confidence(record: SessionRecord) -> int | None:
    """The user's self-reported confidence after the last turn (None in single-shot mode)."""
    for turn in reversed(record.turns):
        if turn.confidence_after is not None:
            return turn.confidence_after
    return None


@dataclass
class SessionMetrics:
    proc_f2p: float | None
    final_f2p: float | None
    final_p2p: float | None
    turns: int
    cost_usd: float | None
    final_confidence: int | None
    assistant_tokens: int
    simulator_tokens: int

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def session_metrics(record: SessionRecord, instance: Instance) -> SessionMetrics:
    au, su = record.assistant_usage, record.simulator_usage
    return SessionMetrics(proc_f2p=proc_f2p(record, instance), final_f2p=final_f2p(record, instance),
                          final_p2p=final_p2p(record, instance), turns=turns_per_session(record),
                          cost_usd=cost_per_session(record), final_confidence=final_confidence(record),
                          assistant_tokens=au.prompt_tokens + au.completion_tokens,
                          simulator_tokens=su.prompt_tokens + su.completion_tokens)


def mean_or_none(values: list[float | int | None]) -> float | None:
    """Mean over applicable values; None when none applies."""
    vals = [float(v) for v in values if v is not None]
    return fmean(vals) if vals else None
