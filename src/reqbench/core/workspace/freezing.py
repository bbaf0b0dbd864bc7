"""Turning an agent's workspace into a submission without letting its content fail the harness.

Every protocol freezes an agent's work the same way: walk the workspace, diff it against the baseline.
What the agent left can make that impossible (more files, bytes or depth than `WorkspaceLimits` allow, a
file it keeps rewriting, a path too long to open). That is the agent's failure, not the harness's: these
helpers return an `AgentFailure` carrying the reason instead of raising, so each protocol scores the row
as a failure with that reason (never *invalid*, which would re-run the agent and finally drop the row).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import AgentWorkspaceError
from reqbench.core.workspace.limits import DEFAULT_LIMITS, WorkspaceLimits
from reqbench.core.workspace.patches import Submission, diff_trees
from reqbench.core.workspace.workspace import Workspace


@dataclass(frozen=True)
class AgentFailure:
    """The agent's workspace could not be delivered; `reason` is one sentence for the row result."""

    reason: str
    limit: str = ""

    @classmethod
    def from_error(cls, exc: AgentWorkspaceError) -> AgentFailure:
        return cls(reason=f"workspace rejected: {exc.reason}", limit=getattr(exc, "limit", ""))

    def to_dict(self) -> dict[str, str]:
        out = {"reason": self.reason}
        if self.limit:
            out["limit"] = self.limit
        return out


def safe_submission(ws: Workspace) -> Submission | AgentFailure:
    """`ws.submission()`, or the `AgentFailure` its content causes (limits, unreadable entries)."""
    try:
        return ws.submission()
    except AgentWorkspaceError as exc:
        return AgentFailure.from_error(exc)


def safe_diff(base: Path, changed: Path, limits: WorkspaceLimits | None = DEFAULT_LIMITS,
              skipped: list[str] | None = None) -> str | AgentFailure:
    """`diff_trees(base, changed)` for an agent-controlled `changed`, or the `AgentFailure` it causes."""
    try:
        return diff_trees(base, changed, limits, skipped=skipped)
    except AgentWorkspaceError as exc:
        return AgentFailure.from_error(exc)
