"""Cost and effort per configuration: what each configuration spent to get its scores, beside the scores in
every study output (`study report`, ``--json``, ``--html``, the viewer's leaderboard, sortable there).

Per configuration, over its planned rows (`ConfigCost`):

* ``model calls``, ``prompt tokens``, ``completion tokens``, ``cost (USD)`` -- the calls sent upstream as
  the run store recorded them (``model_calls``: the gateway's and the model client's, `report.model_usage`),
  never an agent's self-report; every attempt of a row counts (each was paid for); a replayed call costs
  nothing again and is counted apart (``replayed calls``). The cost is None when no call had a price, and
  marked partial when some had none;
* ``cost per scored row (USD)`` -- the cost over the scored rows: what one measurement cost;
* ``agent time (s)`` -- the agent's wall-clock time summed over the selected attempts whose protocol records
  it (`report.rowfacts`: ReqMemBench's and SpecPath's rows), with ``agent time rows`` saying over how many; ``row time
  (s)`` -- every selected attempt's wall-clock time from start to end (agent and checks), any protocol;
* ``prices`` -- the price layers the run recorded when it started (`core.execute.price_source`), as every
  run report names them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.protocol_study import StudyTable
from reqbench.core.store import RunStore
from reqbench.core.store.selection import Attempt
from reqbench.core.summary import Cell, SummaryTable
from reqbench.report.rowfacts import row_facts
from reqbench.report.run_report import pricing_statement
from reqbench.study.collect import ConfigRows, StudyData

ESTIMATOR = ("sums over each configuration's planned rows: model calls sent upstream and their tokens and USD "
             "as recorded (every attempt; replayed calls cost nothing again), agent time where the protocol "
             "records it, row time from each selected attempt's start to end; prices as each run recorded them")
NUMERIC = ("model calls", "prompt tokens", "completion tokens", "cost (USD)", "cost per scored row (USD)",
           "agent time (s)", "row time (s)")
"""The columns the viewer's leaderboard adds (numbers, so it can sort by them)."""


@dataclass(frozen=True)
class ConfigCost:
    """What one configuration spent on its rows (see the module docstring)."""

    model_calls: int
    replayed_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    cost_complete: bool
    scored_rows: int
    agent_seconds: float | None
    agent_time_rows: int
    row_seconds: float
    prices: str

    @property
    def cost_per_scored_row(self) -> float | None:
        return None if self.cost_usd is None or not self.scored_rows else self.cost_usd / self.scored_rows

    def cells(self) -> dict[str, Cell]:
        """The table row: numbers under `NUMERIC` names, then the notes."""
        return {"model calls": self.model_calls, "replayed calls": self.replayed_calls,
                "prompt tokens": self.prompt_tokens, "completion tokens": self.completion_tokens,
                "cost (USD)": _rounded(self.cost_usd, 6), "cost complete": self.cost_complete,
                "cost per scored row (USD)": _rounded(self.cost_per_scored_row, 6),
                "agent time (s)": _rounded(self.agent_seconds, 1), "agent time rows": self.agent_time_rows,
                "row time (s)": round(self.row_seconds, 1), "prices": self.prices}

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "cost_per_scored_row": self.cost_per_scored_row}


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _seconds(attempt: Attempt) -> float:
    try:
        return max(0.0, (datetime.fromisoformat(attempt.finished) - datetime.fromisoformat(attempt.started))
                   .total_seconds())
    except (TypeError, ValueError):
        return 0.0


def config_cost(stored: ConfigRows) -> ConfigCost:
    """The cost and effort of one configuration's run directory."""
    with RunStore.open(stored.run_dir, read_only=True) as store:
        by_row = StoreRecorder.for_store(store).totals()
        planned = store.selected_attempts()
        meta = store.meta
    totals = [by_row[row.key] for row, _, _ in planned if row.key in by_row]
    selected = [a for _, a, _ in planned if a is not None]
    priced = [t["cost_usd"] for t in totals if t["cost_usd"] is not None]
    agent = [s for a in selected if (s := row_facts(a.status.value, a.reason, a.result)["seconds"]) is not None]
    return ConfigCost(
        model_calls=sum(t["upstream"] for t in totals), replayed_calls=sum(t["replay"] for t in totals),
        prompt_tokens=sum(t["prompt_tokens"] for t in totals),
        completion_tokens=sum(t["completion_tokens"] for t in totals),
        cost_usd=sum(priced) if priced else None,
        cost_complete=all(t["cost_complete"] for t in totals),
        scored_rows=stored.counts.get("scored", 0),
        agent_seconds=sum(agent) if agent else None, agent_time_rows=len(agent),
        row_seconds=sum(_seconds(a) for a in selected),
        prices=pricing_statement(meta.options, meta.provenance.get("prices")))


def study_costs(data: StudyData) -> dict[str, ConfigCost]:
    """Every configuration with a run directory, in the study's order."""
    return {name: config_cost(stored) for name, stored in data.configs.items()}


def cost_table(data: StudyData, costs: dict[str, ConfigCost] | None = None) -> StudyTable:
    """The report's table: one row per configuration."""
    found = study_costs(data) if costs is None else costs
    return StudyTable(SummaryTable("cost and effort by configuration", {n: c.cells() for n, c in found.items()}),
                      ESTIMATOR)
