"""Journey rows for studies: the per-condition session means of `journey.report.summarize_rows` (Proc F2P,
Final F2P, Final P2P, Average, turns, cost), per session and per configuration; the capability judge's
per-turn labels for the label-stability audit; and the share of simulated-user turns replayed from a
frozen pilot (`journey.frozen_user`)."""

from __future__ import annotations

from typing import Any

from reqbench.core.execute.types import Row, RowOutcome
from reqbench.protocols.journey.frozen_user import ARTIFACT as USER_TURNS
from reqbench.protocols.journey.frozen_user import frozen_sessions as frozen_document
from reqbench.protocols.journey.report import provenance_notes, summarize_rows
from reqbench.protocols.journey.row_result import JourneyResult
from reqbench.study.readers import PairedOutcome

PAIRED = PairedOutcome("Final F2P", binary=False, clusters="instances", unit="instance")
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


LABEL_ORDER = None
"""The capability judge's labels are nominal (yes/no, hit/miss/no_locus, skipped/grounded/clean)."""


def judge_labels(outcome: RowOutcome) -> dict[str, str]:
    """``turnN.FIELD`` -> label of the capability judge (SWE-Journey B.3) for a session it labelled."""
    caps = JourneyResult.of(outcome.result).capabilities or {}
    return {f"turn{i}.{name}": str(value) for i, turn in enumerate(caps.get("turn_labels") or [])
            for name, value in turn.items()}


def replayed(outcome: RowOutcome) -> tuple[int, int, bool] | None:
    """(reactions, replayed from the pilot, diverged) of a session run with a frozen user; None otherwise."""
    found = JourneyResult.of(outcome.result).frozen_user
    if not isinstance(found, dict):
        return None
    return int(found.get("reactions", 0)), int(found.get("replayed", 0)), found.get("first_divergence") is not None


__all__ = ["METRICS", "PAIRED", "USER_TURNS", "frozen_document", "judge_labels", "paired_value",
           "provenance_notes", "replayed", "session_values", "summaries"]
