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
