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

Every turn's diff, test results, reply, usage and the simulator's status/confidence are recorded, with
the packed snapshot of every turn (so the session can be re-scored later, `rescore`). With `Checkpoints`
each turn is checkpointed in the run store and a session stopped by a harness failure or a killed process
continues after its last completed turn, without asking the assistant or the simulator again
(`checkpoints`). Every reaction of the simulated user is logged with its matching key (`frozen_user`), so
the session can serve as the frozen user of other sessions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.agents.base import Budget, Usage
from reqbench.core.execute.agent_step import StepSession
from reqbench.core.hashing import sha256_bytes
from reqbench.core.workspace import remove_tree
from reqbench.protocols.journey.checkpoints import Checkpoints, restore_tree
from reqbench.protocols.journey.env import changed_files, snapshot
from reqbench.protocols.journey.frozen_user import key_hash, reaction_key
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.online import TestRun
from reqbench.protocols.journey.records import SessionLimits, SessionRecord, TurnRecord
from reqbench.protocols.journey.simulators.base import (
    EndReason,
    Observation,
    UserSimulator,
    UserTurn,
    turn_from_dict,
    turn_to_dict,
)
from reqbench.protocols.journey.turns import Evaluator, Sender, reasoning

__all__ = ["SessionLimits", "SessionRecord", "TurnRecord", "reasoning", "run_session", "run_single_shot"]
_reasoning = reasoning


def _stage_now(instance: Instance, statuses: dict[str, str]) -> int:
    seen = [instance.stage_of[sid] for sid, st in statuses.items() if st != "hidden"]
    return max(seen, default=0)


def resumable(session: StepSession) -> bool:
    """Whether the assistant session can hand over and take back its state (`checkpoint` / `restore`)."""
    return session.offers("checkpoint") and session.offers("restore")


class _Loop:
    """The state of one interactive session between turns, and the steps that advance it."""

    def __init__(self, instance: Instance, simulator: UserSimulator, session: StepSession, ev: Evaluator,
                 sender: Sender, record: SessionRecord, cp: Checkpoints) -> None:
        self.instance, self.simulator, self.session, self.ev = instance, simulator, session, ev
        self.sender, self.record, self.cp = sender, record, cp
        self.user = UserTurn("", 0, {})
        self.previous = TestRun({}, "")
        self.stage = 0

    def open(self) -> None:
        base = self.ev.base()
        self.record.base_probes, self.record.initial_confidence = base.probes, self.simulator.state.confidence
        key = reaction_key(0, self.simulator.state, base.probes, None, False)
        self._opened(base, self.simulator.open(base))
        entry = self._logged(key, self.user)
        if self.cp.enabled:
            self.cp.start_epoch()
            self.cp.put("open", {"base_probes": base.probes, "base_tree": base.tree,
                                 "initial_confidence": self.record.initial_confidence,
                                 "user": turn_to_dict(self.user), "simulator": entry["simulator"], "entry": entry})

    def _logged(self, key: dict[str, Any], user: UserTurn) -> dict[str, Any]:
        """Log one reaction of the simulated user (`frozen_user`): its key, the turn, the simulator after it,
        and whether a frozen user replayed it."""
        entry = {"key": key, "key_hash": key_hash(key), "user": turn_to_dict(user),
                 "simulator": self.simulator.checkpoint(), **getattr(self.simulator, "last_reaction", {})}
        self.record.user_turns.append(entry)
        return entry

    def _opened(self, base: TestRun, user: UserTurn) -> None:
        self.previous, self.user = base, user
        self.stage = _stage_now(self.instance, user.statuses)

    def assistant(self, budget: Budget) -> tuple[dict[str, Any], bytes] | None:
        """Send the user's message; returns the turn's assistant part and packed snapshot, or None when the
        harness failed the step (a provider or launcher failure it recorded: the turn is recorded, the
        session ends and the row is invalid, `core.execute.verdict`). A turn the agent itself failed is
        recorded as failed and the session goes on."""
        step, retried = self.sender.send(self.user.message, budget)
        result = step.result
        diff = self.ev.take()
        turn = {"index": len(self.record.turns) + 1, "user_message": self.user.message,
                "disclosed": list(self.user.disclosed),
                "active": [sid for sid, st in self.user.statuses.items() if st == "active"],
                "stage": self.stage, "reply": result.reply or "", "status": result.status.value,
                "usage": result.usage.to_dict(), "steps": len(result.trajectory), "diff": diff,
                "changed_files": changed_files(diff), "retried_overflow": retried,
                "reasoning": reasoning(result), "workspace_rejected": self.ev.rejected}
        blob = self.ev.pack()
        part = {"turn": turn, "tree_blob": sha256_bytes(blob), "failed": not step.completed}
        if step.invalid:
            assert step.reason is not None
            run = self.ev.test()
            self._append(part, run, blob)
            self.record.end_reason, self.record.end_detail = EndReason.HARNESS_ENDED.value, step.detail
            self.record.invalid_reason = step.reason.value
            return None
        if self.cp.enabled:
            self.cp.put_blob(blob)
            self.cp.put(f"t{turn['index']}a", {**part, "session": self.session.call("checkpoint")})
        return part, blob

    def _append(self, part: dict[str, Any], run: TestRun, blob: bytes) -> TurnRecord:
        turn = TurnRecord(**part["turn"], probes=run.probes, tree=run.tree)
        self.record.turns.append(turn)
        self.record.assistant_usage.add(Usage(**turn.usage))
        self.record.snapshots[turn.index] = blob
        return turn

    def react(self, part: dict[str, Any], blob: bytes) -> None:
        """Hidden tests on the turn's snapshot, then the simulated user's reaction (B.1)."""
        run = self.ev.test()
        turn = self._append(part, run, blob)
        obs = Observation(turn=turn.index, reply=turn.reply, changed_files=turn.changed_files, tests=run,
                          previous=self.previous, snapshot=self.ev.prev, assistant_failed=bool(part["failed"]))
        key = reaction_key(turn.index, self.simulator.state, run.probes, self.previous.probes, obs.assistant_failed)
        user = self.simulator.respond(obs)
        self._reacted(turn, run, user)
        entry = self._logged(key, user)
        self.cp.put(f"t{turn.index}u", {"probes": run.probes, "tree": run.tree, "user": turn_to_dict(user),
                                        "simulator": entry["simulator"], "entry": entry})

    def _reacted(self, turn: TurnRecord, run: TestRun, user: UserTurn) -> None:
        turn.confidence_after, turn.statuses_after, turn.user_notes = user.confidence, user.statuses, user.notes
        self.previous, self.user = run, user
        new_stage = _stage_now(self.instance, user.statuses)
        for s in range(self.stage, new_stage):
            self.record.stage_exit_turn.setdefault(s, turn.index)
        self.stage = max(self.stage, new_stage)
        if user.end is not None:
            self.record.end_reason, self.record.final_message = user.end.value, user.message

    def restore(self, opened: dict[str, Any], workspace: Path) -> dict[str, Any] | None:
        """Replay the checkpoints: completed turns are taken as recorded; returns the assistant part of a
        turn whose tests or user reaction are missing (to be finished by `react`), else None."""
        self.record.base_probes, self.record.initial_confidence = opened["base_probes"], opened["initial_confidence"]
        self._opened(TestRun(opened["base_probes"], opened["base_tree"]), turn_from_dict(opened["user"]))
        self.simulator.restore(opened["simulator"])
        self.record.user_turns += [opened["entry"]] if "entry" in opened else []
        last: dict[str, Any] | None = None
        while (part := self.cp.get(f"t{len(self.record.turns) + 1}a")) is not None:
            self.sender.user_turns.add(part["turn"]["user_message"])
            last = part
            reaction = self.cp.get(f"t{part['turn']['index']}u")
            if reaction is None:
                break
            run = TestRun(reaction["probes"], reaction["tree"])
            turn = self._append(part, run, self.cp.tree_blob(part["tree_blob"]))
            self._reacted(turn, run, turn_from_dict(reaction["user"]))
            self.simulator.restore(reaction["simulator"])
            self.record.user_turns += [reaction["entry"]] if "entry" in reaction else []
        if last is None:
            return None
        self.session.call("restore", last["session"])
        remove_tree(workspace)
        restore_tree(self.cp.tree_blob(last["tree_blob"]), workspace)
        self.ev.adopt(snapshot(workspace, self.ev.dir / f"turn_{last['turn']['index']:03d}"), last["turn"]["index"])
        pending = len(self.record.turns) < last["turn"]["index"]
        return last if pending else None


def run_session(instance: Instance, condition: str, simulator: UserSimulator, session: StepSession,
                workspace: Path, work_dir: Path, limits: SessionLimits,
                checkpoints: Checkpoints | None = None) -> SessionRecord:
    """Run one interactive session to its end; returns the full record (nothing is scored here).

    With `checkpoints` (and a session that is `resumable`) the session continues after the last turn
    checkpointed by an earlier attempt; a `HarnessError` (hidden tests that cannot run, a simulator that
    fails) propagates, leaving every completed step checkpointed.
    """
    ev = Evaluator(instance, workspace, work_dir)
    record = SessionRecord(instance=instance.id, condition=condition, mode="interactive", base_probes={})
    budget = Budget(wall_seconds=limits.wall_seconds_per_turn, max_steps=limits.max_steps_per_turn)
    use = checkpoints if checkpoints is not None and resumable(session) else None
    cp = use or Checkpoints("", enabled=False)
    loop = _Loop(instance, simulator, session, ev, Sender(session, limits.watermarks), record, cp)
    try:
        opened = cp.get("open")
        half = loop.restore(opened, workspace) if opened is not None else None
        if opened is None:
            loop.open()
        if half is not None:
            loop.react(half, cp.tree_blob(half["tree_blob"]))
        while not record.end_reason:
            if len(record.turns) >= limits.max_turns:
                record.end_reason = EndReason.TURN_LIMIT.value
                break
            sent = loop.assistant(budget)
            if sent is not None:
                loop.react(*sent)
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


def run_single_shot(instance: Instance, session: StepSession, workspace: Path, work_dir: Path,
                    limits: SessionLimits) -> SessionRecord:
    """Single-shot mode (B.2): no simulator, no feedback; the final repository state is scored."""
    ev = Evaluator(instance, workspace, work_dir)
    base = ev.base()
    record = SessionRecord(instance=instance.id, condition="single-shot", mode="single-shot",
                           base_probes=base.probes)
    budget = Budget(wall_seconds=limits.wall_seconds_per_turn, max_steps=limits.max_steps_per_turn)
    prompt = single_shot_prompt(instance)
    try:
        step, retried = Sender(session, limits.watermarks).send(prompt, budget)
    finally:
        session.close()
    result = step.result
    record.assistant_usage.add(result.usage)
    diff, run = ev.after_turn()
    record.snapshots[1] = ev.pack()
    every = [s.id for s in instance.subtasks]
    record.turns.append(TurnRecord(index=1, user_message=prompt, disclosed=every, active=every,
                                   stage=len(instance.spec.stages) - 1, reply=result.reply or "",
                                   status=result.status.value, usage=result.usage.to_dict(),
                                   steps=len(result.trajectory), diff=diff, changed_files=changed_files(diff),
                                   probes=run.probes, tree=run.tree, retried_overflow=retried,
                                   reasoning=reasoning(result), workspace_rejected=ev.rejected))
    record.end_reason = EndReason.HARNESS_ENDED.value if step.invalid else EndReason.SINGLE_SHOT.value
    if step.invalid:
        assert step.reason is not None
        record.invalid_reason, record.end_detail = step.reason.value, step.detail
    record.final_diff = ev.final_diff()
    return record
