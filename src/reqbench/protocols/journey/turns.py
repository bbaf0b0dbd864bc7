"""One turn's machinery of a journey session: the assistant's side (`Sender`) and the harness's (`Evaluator`).

`Evaluator` snapshots the workspace after each turn (outside the assistant's view), diffs it against the
previous snapshot and runs the hidden tests on it (online evaluation, SWE-Journey §3.4). `Sender` sends a
user message to the assistant session, keeping its chat history under the watermarks (B.1).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentResult, Budget
from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.execute.agent_step import AgentStep, StepSession
from reqbench.core.workspace import DEFAULT_LIMITS, AgentFailure, remove_tree, tree_stats
from reqbench.protocols.journey.checkpoints import pack_tree
from reqbench.protocols.journey.env import diff_trees, snapshot
from reqbench.protocols.journey.history import Watermarks, truncate_chat
from reqbench.protocols.journey.models import Instance
from reqbench.protocols.journey.online import TestRun, run_hidden_tests


class Evaluator:
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

    def take(self) -> str:
        """Snapshot the workspace after a turn; returns the turn's diff (previous snapshot -> this one)."""
        self.count += 1
        dest = self.dir / f"turn_{self.count:03d}"
        try:
            snap, self.rejected = snapshot(self.workspace, dest, self.limits), ""
        except AgentWorkspaceError as exc:  # the assistant's failure: this turn changed nothing usable
            snap, self.rejected = snapshot(self.prev, dest), AgentFailure.from_error(exc).reason
        diff = diff_trees(self.prev, snap)
        self.adopt(snap, self.count)
        return diff

    def adopt(self, snap: Path, count: int) -> None:
        """Make `snap` the latest snapshot, taken after turn `count` (also when a session is restored)."""
        if snap != self.prev:
            remove_tree(self.prev)
        self.prev, self.count = snap, count

    def test(self) -> TestRun:
        """The hidden tests on the latest snapshot (`HarnessError` when they cannot run)."""
        return run_hidden_tests(self.instance, self.prev, self.dir)

    def pack(self) -> bytes:
        """The latest snapshot, packed (kept with the session so it can be re-scored, `rescore`)."""
        return pack_tree(self.prev)

    def after_turn(self) -> tuple[str, TestRun]:
        diff = self.take()
        return diff, self.test()

    def final_diff(self) -> str:
        """The session's whole change set: base repository -> last snapshot."""
        return diff_trees(self.first, self.prev)


class Sender:
    """Sends user turns to the assistant session, keeping its history within the watermarks (B.1).

    A session that offers ``compact_history(keep)`` (the built-in llm agent) is compacted through it: at
    the high watermark before each turn, and forced to the low watermark for the one retry after a
    context overflow the agent reported (`AgentResult.context_overflow`). A session may instead offer
    ``force_low_watermark()`` itself. The session's own state is never edited from here.
    """

    def __init__(self, session: StepSession, marks: Watermarks) -> None:
        self.session, self.marks = session, marks
        self.user_turns: set[str] = set()

    def _fit(self, force_low: bool, drop_last: str | None = None) -> bool:
        if not self.session.offers("compact_history"):
            return False

        def keep(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
            if drop_last is not None and messages and messages[-1].get("content") == drop_last:
                messages = messages[:-1]  # the failed turn's user message is sent again by the retry
            return truncate_chat(messages, self.user_turns, self.marks, force_low=force_low)

        self.session.call("compact_history", keep)
        return True

    def send(self, message: str, budget: Budget) -> tuple[AgentStep, bool]:
        self.user_turns.add(message)
        self._fit(force_low=False)
        step = self.session.send(message, budget)
        if not step.result.context_overflow or step.invalid:
            return step, False
        if self.session.offers("force_low_watermark"):
            self.session.call("force_low_watermark")
        elif not self._fit(force_low=True, drop_last=message):
            return step, False
        return self.session.send(message, budget), True


def reasoning(result: AgentResult) -> str:
    """The assistant's reasoning trace in a turn, only where the provider exposes one (a ``reasoning``
    field on trajectory events). Paper §4.2: Skip%/Crit% are computed from reasoning traces and models
    without accessible traces are excluded, so the agent's message text is *not* used: without a trace
    the Fixing stage is not judged and Skip%/Crit% stay null."""
    parts = [str(e.data["reasoning"]) for e in result.trajectory if e.data.get("reasoning")]
    return "\n\n".join(p for p in parts if p)
