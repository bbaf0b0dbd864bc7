"""SpecPath rows for studies: each stored row as the protocol's results row (`specpath.suite.result_row`),
with the configuration's name as its ``config``, its agent as ``scaffold`` and its model deployment as
``model``, so the protocol's
own statistics (`specpath.metrics.summarize_results`) group by configuration and by model."""

from __future__ import annotations

import dataclasses

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.protocols.specpath.metrics import ResultRow
from reqbench.protocols.specpath.suite import result_row
from reqbench.study.readers import PairedOutcome

PAIRED = PairedOutcome("final-contract success", binary=True, clusters="families", unit="family")


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    """1 for a scored success, 0 for a scored (fixed-budget) failure, None for attrition (SpecPath "Run
    processing": only scored outcomes enter paired blocks)."""
    r = result_row(row, outcome)
    return None if not r.scored else float(r.success)


def results_rows(config: str, scaffold: str, model: str, outcomes: list[tuple[Row, RowOutcome]]) -> list[ResultRow]:
    """A configuration's rows as results rows labelled with the configuration, its scaffold and its model."""
    return [dataclasses.replace(result_row(row, outcome), config=config, scaffold=scaffold, model=model)
            for row, outcome in outcomes]
