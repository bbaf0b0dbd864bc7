"""A protocol for tests that hand a suite object to the runner directly (no suite directory to detect): every
hook keeps its `SuiteProtocol` default; `load` is the test's own."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.execute.suite import Outcomes, Suite, SuiteProtocol
from reqbench.core.summary import Summary


class StubProtocol(SuiteProtocol):
    """Named `name`; detects nothing, finds nothing to validate, loads nothing unless a subclass says how."""

    name = "stub"

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    def detect(self, path: Path) -> bool:
        return False

    def validate(self, path: Path) -> list[str]:
        return []

    def load(self, path: Path) -> Suite:
        raise NotImplementedError("a stub protocol loads no suite directory")


class StubSuite(Suite):
    """A suite for such tests: `summarize` is never asked for (the test reads the store)."""

    def summarize(self, outcomes: Outcomes) -> Summary:
        raise NotImplementedError("a stub suite is never summarised")
