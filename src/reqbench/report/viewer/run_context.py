"""`RunContext`: one run the viewer opened read-only, with its row index, summary and plots computed on first
use. The page modules take it as their argument; it imports no page, so every page module can name its type.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.execute.suite import SuiteProtocol
from reqbench.core.store.runstore import RunStore
from reqbench.core.summary import Cell, Summary, unavailable
from reqbench.report.tables import TableData
from reqbench.report.viewer.index import RowIndex
from reqbench.report.viewer.render import q


class RunContext:
    """One run opened read-only, with its row index, summary and plots computed on first use."""

    def __init__(self, name: str, store: RunStore) -> None:
        self.name = name
        self.store = store
        self.base = f"/run/{q(name)}"
        self._index: RowIndex | None = None

    def index(self) -> RowIndex:
        if self._index is None:
            self._index = RowIndex(self.store)
        return self._index

    @cached_property
    def protocol(self) -> SuiteProtocol | None:
        """The run's protocol, or None when it is not installed here (the rows stay browsable)."""
        from reqbench.protocols.base import load_protocol

        try:
            return load_protocol(self.store.meta.protocol)
        except InputError:
            return None

    @cached_property
    def summary(self) -> Summary:
        """The run's typed summary; when its protocol is not installed, or the suite moved or no longer
        loads, a summary saying so (the rows stay browsable)."""
        if self.protocol is None:
            return Summary()
        try:
            return self.protocol.load(Path(self.store.meta.suite_path)).summarize(self.store.outcomes())
        except Exception as exc:  # a moved suite or an old run
            return unavailable(f"{type(exc).__name__}: {exc}")

    def tables(self) -> list[TableData]:
        from reqbench.report.tables import summary_tables

        return summary_tables(self.summary)

    @cached_property
    def _plots(self) -> list[tuple[str, bytes]]:
        from reqbench.report.headline_plots import headline_plots

        return headline_plots(self.summary.plots)

    def plots(self) -> list[tuple[str, bytes]]:
        return self._plots

    def headline(self) -> dict[str, Cell]:
        return dict(self.summary.headline)
