"""Typed errors a user can cause. The CLI catches `InputError` and prints one sentence, exit 2.

Every message names the file, the item and the rule that was broken, e.g.
``suite.yaml: task 'T003': check 'build' has no command``.
"""

from __future__ import annotations


class ReqbenchError(Exception):
    """Base class of every error reqbench raises on purpose."""


class InputError(ReqbenchError):
    """Bad input (file, item, rule). Exit code 2; nothing half-written."""

    def __init__(self, message: str, *, file: str | None = None, item: str | None = None) -> None:
        parts = [p for p in (file, item) if p]
        self.file = file
        self.item = item
        self.rule = message
        super().__init__(": ".join([*parts, message]))


class HarnessError(ReqbenchError):
    """The harness (not the agent) failed: a check could not run, the sandbox could not start, ...

    Rows that end in a harness error stay *pending* and are re-evaluated on resume; they are never
    counted as agent failures (ReqMemBench C.2).
    """


class AgentWorkspaceError(ReqbenchError):
    """The agent left a workspace the harness refuses to process: the *agent's* failure, never a
    harness error. `reason` is one sentence naming the entry and the rule (it is recorded in the row).

    Raised by the tree operations of `reqbench.core.workspace` on agent-controlled trees (an unreadable
    file it cannot repair, a file that keeps changing while it is read, a path too long to open);
    protocols map it to a scored failure through `reqbench.core.workspace.safe_submission`.
    """

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class WorkspaceLimitExceeded(AgentWorkspaceError):
    """A workspace exceeds a `WorkspaceLimits` cap (entries, total bytes, file size, depth)."""

    def __init__(self, reason: str, *, limit: str = "") -> None:
        self.limit = limit
        super().__init__(reason)
