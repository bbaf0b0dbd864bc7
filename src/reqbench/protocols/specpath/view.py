"""The SpecPath pages as data (`core.views`): a row's probe signature (one cell per probe, pass/fail/not
run; SpecPath §4.1) and the run's signature raster, one line per row, each cell opening its row."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.suite import Outcomes
from reqbench.core.views import (
    AttemptRecord,
    Block,
    Fold,
    Heading,
    Muted,
    Paragraph,
    Raster,
    RowLink,
    RowView,
    Status,
    TableBlock,
    json_dict,
)
from reqbench.protocols.specpath.row_result import SpecpathResult


def _cells(probes: dict[str, Any]) -> tuple[tuple[str, bool | None], ...]:
    return tuple((str(k), v if isinstance(v, bool) else None) for k, v in probes.items())


def row_view(record: AttemptRecord) -> RowView:
    result = SpecpathResult.of(record.result)
    probes = json_dict(result.probes)
    if not probes:
        return RowView((Heading("probe signature"), Paragraph((Muted(f"no probes ran ({result.reason})"),))))
    listing = TableBlock(("probe", "passed"),
                         tuple((str(k), Status("pass" if v else "fail")) for k, v in probes.items()))
    return RowView((Heading("probe signature"), Raster(_cells(probes)), Fold(("probes",), (listing,), open=True)))


def run_view(outcomes: Outcomes) -> tuple[Block, ...]:
    """The whole run's probe raster: one line per row, one cell per probe."""
    rows = []
    for row, outcome in outcomes:
        result = SpecpathResult.of(outcome.result)
        probes = json_dict(result.probes)
        shown = Raster(_cells(probes), link=row.key) if probes else Muted(str(result.reason))
        rows.append((RowLink(row.key, row.key), (shown,)))
    return (Heading("Probe signature raster", level=2), TableBlock(("row", "probes (green: pass)"), tuple(rows)))
