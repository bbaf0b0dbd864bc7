"""A run's protocol describes its own parts of the pages as data (`core.views`): ``row_view`` for a row's
attempt and ``run_view`` for the run page, both optional hooks. This module asks for them and renders the
blocks (`blocks`); a protocol that is not installed, has no such hook, or fails on an old or damaged
result gives no part or a one-line note, never a broken page."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

from reqbench.core.execute.suite import Outcomes, SuiteProtocol
from reqbench.core.execute.types import Row
from reqbench.core.store.selection import Attempt
from reqbench.core.views import AttemptRecord, Muted, Paragraph, RowView
from reqbench.report.viewer.blobs import blob_text
from reqbench.report.viewer.blocks import blocks_html
from reqbench.report.viewer.run_context import RunContext


def _failed(exc: Exception) -> RowView:
    return RowView((Paragraph((Muted(f"the protocol's view of this cannot be shown: {type(exc).__name__}: {exc}"),)),))


def row_view(run: RunContext, row: Row, attempt: Attempt) -> RowView:
    """The protocol's part of one attempt's row page (its ``row_view`` hook; empty without a protocol)."""
    if run.protocol is None:
        return RowView(())
    record = AttemptRecord(row, Path(run.store.meta.suite_path), attempt.result,
                           lambda name: blob_text(run, attempt, name))
    try:
        view = run.protocol.row_view(record)
    except Exception as exc:  # an old or damaged stored result: the rest of the page still shows
        return _failed(exc)
    return view if isinstance(view, RowView) else RowView(tuple(view))


def run_view_html(protocol: SuiteProtocol | None, outcomes: Outcomes, base: str | None = None) -> str:
    """The protocol's run-wide view (its ``run_view`` hook) as HTML: with `base` (a run's address in the
    viewer) row references link to their row pages; without, they are text (the one-file HTML report)."""
    if protocol is None:
        return ""
    try:
        blocks = protocol.run_view(outcomes)
    except Exception as exc:  # an old or damaged stored result: the rest of the page still shows
        blocks = _failed(exc).blocks
    return blocks_html(blocks, None if base is None else lambda key: f"{base}/row?{urlencode({'key': key})}")
