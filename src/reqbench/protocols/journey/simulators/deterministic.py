"""The deterministic simulated user: the offline default. Free, and reproducible from a seed.

This is a rule-based approximation of the paper's LLM simulator (§3.3, B.1), not a replica: it has no
language understanding beyond word overlap, and its confidence dynamics are a fixed rule. What it does,
each call, in order:

**Opening.** A greeting (with the project overview unless the persona has no expertise) followed by the
first disclosure batch.

**Verification** (after each assistant turn). The simulator reads the hidden test results of the
snapshot taken after the turn (the paper's simulator can run the hidden tests, B.1). An active subtask
is *accepted* (status done) when, in the persona's verification style, it looks finished:

* ``symptoms`` (trying it out): at least half of the subtask's F2P nodes pass;
* ``acceptance``, ``tests``: all of its F2P nodes pass;
* ``review``: all of its F2P and P2P nodes pass.

A *regression* is a node that passed after the previous turn and fails now, among the F2P nodes of
accepted subtasks and the whole-task P2P nodes. ``tests`` and ``review`` users see every regression;
``acceptance`` users see regressions of accepted subtasks' F2P nodes; ``symptoms`` users see none. A seen
regression reopens the accepted subtasks it touches.

**Confidence** (0-100, starts at the persona's `initial_confidence`):
``+ resolve_reward`` per accepted subtask; otherwise ``+ progress_reward`` if more F2P nodes of the active
subtasks pass than after the previous turn; otherwise ``- no_progress_penalty`` (a turn spent only on a
pivoted goal is exempt). ``- regression_penalty`` when a regression is seen. Confidence 0 ends the session.

**Patience.** Each turn without progress adds one to every active subtask's stall count; at
`persona.patience` the subtask is dropped and the user moves on.

**Questions.** Every sentence of the assistant's reply that ends in '?' is answered from the hidden
request of the best-matching active subtask (word overlap), at the persona's expertise level.

**Disclosure.** When no subtask is active, the next batch of hidden subtasks is disclosed in checklist
order: 1, 2 or 3 per message for minimal, moderate or detailed detail preference, never across a stage
boundary. Wording follows expertise and detail preference; directive users name the files to change.

**Goal pivots.** A subtask with a `pivot_from` text is first stated in that earlier form when the
persona's goal stability is ``pivoting`` (always) or ``evolving`` (seeded coin flip); on the next turn the
user withdraws it and states the real request. Only then does the subtask count as disclosed.

**Ending.** All subtasks done or dropped -> a closing message and the session ends; confidence 0 -> the
user gives up. The shared turn limit is the session loop's.

Randomness: one `random.Random` seeded from (seed, persona, instance); it picks pivots for ``evolving``
users and among phrasing templates. Same seed, same assistant behaviour -> the same conversation.
"""

from __future__ import annotations

import random
from typing import Any

from reqbench.core.agents.base import Usage
from reqbench.protocols.journey.models import Instance, SubtaskSpec
from reqbench.protocols.journey.online import TestRun
from reqbench.protocols.journey.personas import GoalStability, Persona, VerificationStyle
from reqbench.protocols.journey.simulators import phrasing
from reqbench.protocols.journey.simulators.base import (
    EndReason,
    Observation,
    SimState,
    SubtaskStatus,
    UserTurn,
)


class DeterministicSimulator:
    name = "deterministic"

    def __init__(self, instance: Instance, persona: Persona, seed: int = 0) -> None:
        self.instance = instance
        self.persona = persona
        self.state = SimState(instance, persona)
        self.usage = Usage(cost_usd=0.0)
        self.rng = random.Random(f"{seed}:{persona.name}:{instance.id}")
        self._stall: dict[str, int] = {s.id: 0 for s in instance.subtasks}
        self._pivot_pending: list[str] = []

    def checkpoint(self) -> dict[str, Any]:
        version, internal, gauss = self.rng.getstate()
        return {"state": self.state.to_dict(), "rng": [version, list(internal), gauss],
                "stall": dict(self._stall), "pivot_pending": list(self._pivot_pending)}

    def restore(self, state: dict[str, Any]) -> None:
        self.state.load(state["state"])
        version, internal, gauss = state["rng"]
        self.rng.setstate((version, tuple(internal), gauss))
        self._stall = {str(k): int(v) for k, v in state["stall"].items()}
        self._pivot_pending = [str(s) for s in state["pivot_pending"]]

    # ---- disclosure -------------------------------------------------------------------------------

    def _wants_pivot(self, sub: SubtaskSpec) -> bool:
        if not sub.pivot_from:
            return False
        stability = self.persona.goal_stability
        if stability is GoalStability.PIVOTING:
            return True
        return stability is GoalStability.EVOLVING and self.rng.random() < 0.5

    def _disclose(self, ids: list[str]) -> tuple[list[str], list[str]]:
        """Mark `ids` active; return (message lines, ids whose real request was stated)."""
        lines, real = [], []
        for sid in ids:
            sub = self.instance.subtask(sid)
            self.state.status[sid] = SubtaskStatus.ACTIVE
            if self._wants_pivot(sub):
                self._pivot_pending.append(sid)
                lines.append(sub.pivot_from)
            else:
                lines.append(phrasing.describe(self.instance, sub, self.persona))
                real.append(sid)
        self.state.disclosed.extend(real)
        return lines, real

    def _turn(self, lines: list[str], disclosed: list[str], end: EndReason | None = None,
              notes: dict[str, Any] | None = None) -> UserTurn:
        return UserTurn(message="\n\n".join(x for x in lines if x), confidence=self.state.confidence,
                        statuses=self.state.snapshot(), disclosed=disclosed, end=end, notes=notes or {})

    def open(self, base: TestRun) -> UserTurn:
        lines, real = self._disclose(self.state.next_batch(self.persona.disclosure_batch))
        return self._turn([phrasing.opening(self.instance, self.persona, self.rng), *lines], real)

    # ---- verification -----------------------------------------------------------------------------

    def _accepts(self, sub: SubtaskSpec, run: TestRun) -> bool:
        style = self.persona.verification_style
        rate = run.rate(sub.f2p) or 0.0
        if style is VerificationStyle.SYMPTOMS:
            return rate >= 0.5
        if style is VerificationStyle.REVIEW:
            return rate == 1.0 and not run.failing(self.instance.p2p_of(sub))
        return rate == 1.0

    def _regressions(self, obs: Observation) -> list[str]:
        style = self.persona.verification_style
        if style is VerificationStyle.SYMPTOMS:
            return []
        watched = [n for sid in self.state.ids(SubtaskStatus.DONE) for n in self.instance.subtask(sid).f2p]
        if style is not VerificationStyle.ACCEPTANCE:
            watched += self.instance.whole_p2p
        return [n for n in dict.fromkeys(watched) if obs.previous.passed(n) and not obs.tests.passed(n)]

    def _active_pass_count(self, run: TestRun, ids: list[str]) -> int:
        return sum(1 for sid in ids for n in self.instance.subtask(sid).f2p if run.passed(n))

    # ---- the reaction to one assistant turn ----------------------------------------------------------

    def respond(self, obs: Observation) -> UserTurn:
        st, inst = self.state, self.instance
        lines: list[str] = []
        disclosed: list[str] = []
        # 1. goal pivots stated last turn are withdrawn now and replaced by the real request
        pivoted = list(self._pivot_pending)
        self._pivot_pending.clear()
        for sid in pivoted:
            sub = inst.subtask(sid)
            lines.append(phrasing.pivot_correction(sub, phrasing.describe(inst, sub, self.persona), self.rng))
            st.disclosed.append(sid)
            disclosed.append(sid)
        judged = [sid for sid in st.ids(SubtaskStatus.ACTIVE) if sid not in pivoted]
        # 2. regressions reopen accepted subtasks
        regressions = self._regressions(obs)
        if regressions:
            st.adjust(-self.persona.regression_penalty)
            broken = set(regressions)
            for sid in st.ids(SubtaskStatus.DONE):
                if broken & set(inst.subtask(sid).f2p):
                    st.status[sid] = SubtaskStatus.ACTIVE
                    judged.append(sid)
        # 3. acceptance, progress, patience
        accepted = [sid for sid in judged if self._accepts(inst.subtask(sid), obs.tests)]
        for sid in accepted:
            st.status[sid] = SubtaskStatus.DONE
        if accepted:
            st.adjust(self.persona.resolve_reward * len(accepted))
            lines.insert(0, phrasing.acknowledge([inst.subtask(s) for s in accepted], self.persona, self.rng))
        still = [sid for sid in judged if st.status[sid] is SubtaskStatus.ACTIVE]
        progressed = self._active_pass_count(obs.tests, still) > self._active_pass_count(obs.previous, still)
        if not accepted and progressed and not obs.assistant_failed:
            st.adjust(self.persona.progress_reward)
        elif not accepted and judged:
            st.adjust(-self.persona.no_progress_penalty)
            for sid in still:
                self._stall[sid] += 1
        dropped = [sid for sid in still if self._stall[sid] >= self.persona.patience]
        for sid in dropped:
            st.status[sid] = SubtaskStatus.DROPPED
            lines.append(phrasing.give_up(inst.subtask(sid), self.rng))
        failing = [inst.subtask(sid) for sid in still if sid not in dropped]
        if failing or regressions:
            lines.append(phrasing.feedback(inst, self.persona, failing, obs.tests, regressions, self.rng))
        # 4. answers to the assistant's questions
        open_subs = [inst.subtask(s) for s in st.ids(SubtaskStatus.ACTIVE) if s not in self._pivot_pending]
        for q in phrasing.questions_in(obs.reply)[:3]:
            lines.append(phrasing.answer(inst, self.persona, q, open_subs))
        notes: dict[str, Any] = {"accepted": accepted, "dropped": dropped, "regressions_seen": regressions,
                 "progress": progressed}
        # 5. ending or the next disclosure
        if st.confidence <= 0:
            return self._turn([*lines, "I don't think this is going anywhere. I'll stop here."], disclosed,
                              EndReason.CONFIDENCE_ZERO, notes)
        if not st.ids(SubtaskStatus.ACTIVE):
            if st.resolved():
                return self._turn([*lines, "That's everything I needed. Thanks!"], disclosed,
                                  EndReason.ALL_RESOLVED, notes)
            more, real = self._disclose(st.next_batch(self.persona.disclosure_batch))
            lines.extend(["Next:", *more])
            disclosed.extend(real)
        return self._turn(lines, disclosed, None, notes)
