"""Stored rows as SpecPath results rows (`metrics.ResultRow`): what the protocol's statistics, its results
file and its study hook (`specpath.study`) read from a run's outcomes. The statistics are imported where
they are used, so a run does not load them on its way to the first row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reqbench.core.execute.suite import Outcomes
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.protocols.specpath.row_result import SpecpathResult

if TYPE_CHECKING:
    from reqbench.protocols.specpath.metrics import ResultRow


def result_row(row: Row, outcome: RowOutcome, config: dict[str, str] | None = None) -> ResultRow:
    """A stored row as a results row: scored rows keep success/failure; anything else is attrition. The
    configuration (scaffold and model, `runs.configuration`) is the one the row recorded, else `config`
    (the run's, for a row that ended before recording it), else the row's agent."""
    from reqbench.protocols.specpath.metrics import ResultRow

    res = SpecpathResult.of(outcome.result)
    scored = outcome.status == RowStatus.SCORED and res.outcome in ("success", "failure")
    sig = res.signature
    reason = outcome.reason or res.reason or ""
    if outcome.status == RowStatus.PENDING:
        reason = f"pending {reason}".strip()
    conf = _configuration(res) or config or {}
    return ResultRow(row.task_id, conf.get("config") or row.agent, row.condition, row.repeat,
                     str(res.outcome) if scored else "invalid",
                     tuple(sig) if scored and sig is not None else None, scaffold=conf.get("scaffold", ""),
                     model=conf.get("model", ""), reason=reason)


def _configuration(res: SpecpathResult) -> dict[str, str]:
    """The configuration a row recorded (config, scaffold, model: the ones that are set)."""
    return {k: v for k, v in (("config", res.config), ("scaffold", res.scaffold), ("model", res.model)) if v}


def result_rows(outcomes: Outcomes) -> list[ResultRow]:
    """Every outcome as a results row; a row that ended before recording its configuration (a harness
    exception) takes the one its run's other rows recorded (one run, one agent spec, one configuration)."""
    known: dict[str, dict[str, str]] = {}
    for row, out in outcomes:
        conf = _configuration(SpecpathResult.of(out.result))
        if conf.get("config"):
            known.setdefault(row.agent, {"scaffold": "", "model": "", **conf})
    return [result_row(row, out, known.get(row.agent)) for row, out in outcomes]
