"""Journey rows for studies: the per-condition session means of `journey.report.summarize_rows` (Proc F2P,
Final F2P, Final P2P, Average, turns, cost), per session and per configuration."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.protocols.journey.report import summarize_rows
from reqbench.study.readers import PairedOutcome

PAIRED = PairedOutcome("Final F2P", binary=False, clusters="instances")
METRICS = {"proc_f2p": "Proc F2P", "final_f2p": "Final F2P", "final_p2p": "Final P2P", "average": "Average",
           "turns_per_session": "turns/session", "cost_per_session": "cost/session ($)"}
"""The paper's main-table columns (SWE-Journey §4, B.2), as `summarize_rows` names them."""


def session_values(row: Row, outcome: RowOutcome) -> dict[str, float | None]:
    """One session's value of every `METRICS` column (the protocol's means over that single session); {} for
    a row that is not scored."""
    found = summarize_rows([(row, outcome)]).get(row.condition) or {}
    if not found.get("sessions"):
        return {}
    return {k: found.get(k) for k in METRICS}


def paired_value(row: Row, outcome: RowOutcome) -> float | None:
    return session_values(row, outcome).get("final_f2p")


def summaries(outcomes: list[tuple[Row, RowOutcome]]) -> dict[str, Any]:
    """The protocol's summary of `outcomes`: keyed by condition (persona or single-shot) for one
    configuration, ``CONFIG/CONDITION`` for rows of several (relabelled), the input of `journey.comparisons`."""
    return summarize_rows(outcomes)
