"""`reqbench stats SUITE`: the dataset-statistics tables of any suite, asked of its protocol.

Generic: the command detects the suite's protocol and calls its optional ``dataset_stats(path)`` hook,
which returns a typed `Summary` (overview facts and tables: ReqMemBench Tables 7-9, SpecPath Tables 1-2,
SWE-Journey's instance and test-node counts, PACE-Bench's Figure 3). Printed like a report's tables, or as
JSON (``--json``: the protocol, the suite and the typed summary).
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from reqbench.cli.consoles import console
from reqbench.cli.protocol_lookup import suite_spec
from reqbench.protocols.base import dataset_stats
from reqbench.report.tables import rich_tables, summary_tables


def stats(
    suite: Path = typer.Argument(..., help="Suite directory (or a single task), or demo:NAME.", callback=suite_spec),
    as_json: bool = typer.Option(False, "--json", help="Print {\"protocol\", \"suite\", \"stats\": typed "
                                 "summary (overview, tables)} as JSON."),
) -> None:
    """Print the dataset-statistics tables of a suite (the papers' scope, size and gold-item tables).

    Computed from the suite's files: takeover scope, history-length quartiles and gold items; SpecPath
    families and histories per condition; journey instances, subtasks and F2P/P2P tests; PACE cases,
    changed lines and Code Point types. A fetched source is downloaded into the cache on first use.

    Example: reqbench stats demo:takeover --json
    """
    path = suite.resolve()
    protocol, summary = dataset_stats(path)
    if as_json:
        console.echo(json.dumps({"protocol": protocol.name, "suite": str(path), "stats": summary.to_json()},
                                indent=2, ensure_ascii=False))
        return
    console.rule(f"{protocol.name} dataset statistics: {suite}")
    for table in summary_tables(summary):
        for part in rich_tables(table, console.width):
            console.print(part)
