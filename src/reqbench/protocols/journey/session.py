"""The session loop (SWE-Journey B.1) and single-shot mode (B.2).

One session is one (instance, persona, assistant) interaction in one persistent workspace:

1. the hidden tests run on the base repository (turn 0);
2. the simulator writes the opening message;
3. each turn: the assistant works on the user's message with up to `max_steps_per_turn` autonomous steps
   and replies; a snapshot of the workspace is diffed against the previous one and the hidden tests run
   on it (online evaluation, never in the assistant's view); the simulator reacts;
4. the session ends when every subtask is resolved (done or dropped), when the user's confidence reaches
   0, or when the shared turn limit is reached.

History (B.1): an assistant session that exposes its chat ``messages`` is kept under the high watermark
(user turns and recent context survive, `history`); if the assistant reports a provider error that
mentions the context, the history is forced to the low watermark (or the session's own
``force_low_watermark()`` is called) and the turn is retried once.

Every turn's diff, test results, reply, usage and the simulator's status/confidence are recorded.
"""

from __future__ import annotations

import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentResult, AgentStatus, Budget, Session, Usage
from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.workspace import DEFAULT_LIMITS, AgentFailure, tree_stats
from reqbench.protocols.journey.env import changed_files, diff_trees, snapshot
from reqbench.protocols.journey.history import Watermarks, truncate_chat
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.online import TestRun, run_hidden_tests
from reqbench.protocols.journey.simulators.base import EndReason, Observation, UserSimulator, UserTurn


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
                "stage_exit_turn": {str(k): v for k, v in self.stage_exit_turn.items()},
                "assistant_usage": self.assistant_usage.to_dict(),
                "simulator_usage": self.simulator_usage.to_dict(),
                "initial_confidence": self.initial_confidence, "base_probes": self.base_probes,
                "turns": turns}


class _Evaluator:
    """Snapshots the workspace after each turn, diffs it against the previous one, runs hidden tests."""

    def __init__(self, instance: Instance, workspace: Path, work_dir: Path) -> None:
        self.instance = instance
        self.workspace = workspace
        self.dir = work_dir / "snapshots"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.first = snapshot(workspace, self.dir / "base")
        self.prev = snapshot(workspace, self.dir / "turn_000")
        self.count = 0
        self.limits = DEFAULT_LIMITS.beyond(tree_stats(self.first))
        self.rejected = ""

    def base(self) -> TestRun:
        return run_hidden_tests(self.instance, self.prev, self.dir)

    def after_turn(self) -> tuple[str, TestRun]:
        self.count += 1
        dest = self.dir / f"turn_{self.count:03d}"
        try:
            snap, self.rejected = snapshot(self.workspace, dest, self.limits), ""
        except AgentWorkspaceError as exc:  # the assistant's failure: this turn changed nothing usable
            snap, self.rejected = snapshot(self.prev, dest), AgentFailure.from_error(exc).reason
        diff = diff_trees(self.prev, snap)
        run = run_hidden_tests(self.instance, snap, self.dir)
        shutil.rmtree(self.prev, ignore_errors=True)
        self.prev = snap
        return diff, run

    def final_diff(self) -> str:
        """The session's whole change set: base repository -> last snapshot."""
        return diff_trees(self.first, self.prev)


def _is_overflow(result: AgentResult) -> bool:
    return result.status is AgentStatus.PROVIDER_ERROR and "context" in result.detail.lower()


class _Sender:
    """Sends user turns to the assistant session, keeping its history within the watermarks (B.1).

    A session exposing its chat history as a ``messages`` list (the built-in llm agent) is truncated
    here: at the high watermark before each turn, and forced to the low watermark for the one retry
    after a context overflow. A session may instead offer ``force_low_watermark()`` itself.
    """

    def __init__(self, session: Session, marks: Watermarks) -> None:
        self.session, self.marks = session, marks
        self.user_turns: set[str] = set()

    def _chat(self) -> list[dict[str, Any]] | None:
        messages = getattr(self.session, "messages", None)
        if isinstance(messages, list) and all(isinstance(m, dict) and "role" in m for m in messages):
            return messages
        return None

    def _fit(self, force_low: bool) -> bool:
        messages = self._chat()
        if messages is None:
            return False
        messages[:] = truncate_chat(messages, self.user_turns, self.marks, force_low=force_low)
        return True

    def send(self, message: str, budget: Budget) -> tuple[AgentResult, bool]:
        self.user_turns.add(message)
        self._fit(force_low=False)
        result = self.session.send(message, budget)
        if not _is_overflow(result):
            return result, False
        lower = getattr(self.session, "force_low_watermark", None)
        if callable(lower):
            lower()
        elif not self._fit(force_low=True):
            return result, False
        messages = self._chat()
        if messages and messages[-1].get("content") == message:
            messages.pop()  # the failed turn's user message is sent again by the retry
        return self.session.send(message, budget), True


def _reasoning(result: AgentResult) -> str:
    """The assistant's reasoning trace in a turn, only where the provider exposes one (a ``reasoning``
    field on trajectory events). Paper §4.2: Skip%/Crit% are computed from reasoning traces and models
    without accessible traces are excluded, so the agent's message text is *not* used: without a trace
    the Fixing stage is not judged and Skip%/Crit% stay null."""
    parts = [str(e.data["reasoning"]) for e in result.trajectory if e.data.get("reasoning")]
    return "\n\n".join(p for p in parts if p)


def _stage_now(instance: Instance, statuses: dict[str, str]) -> int:
    seen = [instance.stage_of[sid] for sid, st in statuses.items() if st != "hidden"]
    return max(seen, default=0)


def run_session(instance: Instance, condition: str, simulator: UserSimulator, session: Session,
                workspace: Path, work_dir: Path, limits: SessionLimits) -> SessionRecord:
    """Run one interactive session to its end; returns the full record (nothing is scored here)."""
    ev = _Evaluator(instance, workspace, work_dir)
    base = ev.base()
    record = SessionRecord(instance=instance.id, condition=condition, mode="interactive",
                           base_probes=base.probes, initial_confidence=simulator.state.confidence)
    budget = Budget(wall_seconds=limits.wall_seconds_per_turn, max_steps=limits.max_steps_per_turn)
    sender = _Sender(session, limits.watermarks)
    user: UserTurn = simulator.open(base)
    stage = _stage_now(instance, user.statuses)
    previous = base
    try:
        while True:
            if len(record.turns) >= limits.max_turns:
                record.end_reason = EndReason.TURN_LIMIT.value
                break
            result, retried = sender.send(user.message, budget)
            record.assistant_usage.add(result.usage)
            diff, run = ev.after_turn()
            turn = TurnRecord(index=len(record.turns) + 1, user_message=user.message,
                              disclosed=list(user.disclosed),
                              active=[sid for sid, st in user.statuses.items() if st == "active"],
                              stage=stage, reply=result.reply or "",
                              status=result.status.value, usage=result.usage.to_dict(),
                              steps=len(result.trajectory), diff=diff, changed_files=changed_files(diff),
                              probes=run.probes, tree=run.tree, retried_overflow=retried,
                              reasoning=_reasoning(result), workspace_rejected=ev.rejected)
            record.turns.append(turn)
            if result.status is AgentStatus.PROVIDER_ERROR:
                record.end_reason = "provider_error"
                break
            obs = Observation(turn=turn.index, reply=turn.reply, changed_files=turn.changed_files, tests=run,
                              previous=previous, snapshot=ev.prev,
                              assistant_failed=result.status is not AgentStatus.COMPLETED)
            user = simulator.respond(obs)
            turn.confidence_after, turn.statuses_after, turn.user_notes = (user.confidence, user.statuses,
                                                                           user.notes)
            previous = run
            new_stage = _stage_now(instance, user.statuses)
            for s in range(stage, new_stage):
                record.stage_exit_turn.setdefault(s, turn.index)
            stage = max(stage, new_stage)
            if user.end is not None:
                record.end_reason = user.end.value
                record.final_message = user.message
                break
    finally:
        session.close()
        record.simulator_usage = simulator.usage
    for s in range(len(instance.spec.stages)):
        record.stage_exit_turn.setdefault(s, len(record.turns))
    record.final_diff = ev.final_diff()
    return record


def single_shot_prompt(instance: Instance) -> str:
    """The whole instance in one prompt (B.2): overview, then every stage's requests and criteria."""
    parts = [instance.spec.overview or instance.spec.title,
             "Implement all of the following requirements in this repository."]
    for stage in instance.spec.stages:
        parts.append(f"## {stage.title or stage.id}")
        for sub in stage.subtasks:
            crit = "".join(f"\n  - {c}" for c in sub.acceptance_criteria)
            parts.append(f"- {sub.title}: {sub.request}{crit}")
    return "\n\n".join(parts)


def run_single_shot(instance: Instance, session: Session, workspace: Path, work_dir: Path,
                    limits: SessionLimits) -> SessionRecord:
    """Single-shot mode (B.2): no simulator, no feedback; the final repository state is scored."""
    ev = _Evaluator(instance, workspace, work_dir)
    base = ev.base()
    record = SessionRecord(instance=instance.id, condition="single-shot", mode="single-shot",
                           base_probes=base.probes)
    budget = Budget(wall_seconds=limits.wall_seconds_per_turn, max_steps=limits.max_steps_per_turn)
    prompt = single_shot_prompt(instance)
    try:
        result, retried = _Sender(session, limits.watermarks).send(prompt, budget)
    finally:
        session.close()
    record.assistant_usage.add(result.usage)
    diff, run = ev.after_turn()
    every = [s.id for s in instance.subtasks]
    record.turns.append(TurnRecord(index=1, user_message=prompt, disclosed=every, active=every,
                                   stage=len(instance.spec.stages) - 1, reply=result.reply or "",
                                   status=result.status.value, usage=result.usage.to_dict(),
                                   steps=len(result.trajectory), diff=diff, changed_files=changed_files(diff),
                                   probes=run.probes, tree=run.tree, retried_overflow=retried,
                                   reasoning=_reasoning(result), workspace_rejected=ev.rejected))
    record.end_reason = ("provider_error" if result.status is AgentStatus.PROVIDER_ERROR
                         else EndReason.SINGLE_SHOT.value)
    record.final_diff = ev.final_diff()
    return record
