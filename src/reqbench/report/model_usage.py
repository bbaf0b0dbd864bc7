"""Per-row model usage as recorded, for every report (terminal, JSON, HTML) and, through
`report.rowfacts`, for the export and the viewer.

The figures come from the run store's ``model_calls`` table (`StoreRecorder.totals`), never from an
agent's self-report. Both paths to a provider write there: the model gateway (presets, any CLI agent) and
the in-process model client (the built-in ``llm`` agent, ``llm:`` judges, the journey simulator,
`core.llm.call_log`). Tokens and dollars count the calls sent upstream; replayed and refused calls are
counted apart. A replayed call is not spent again, so resuming or re-running a row offline adds no cost;
a row retried online counts each attempt's calls, because each was paid for. Rows without model calls
(control agents) are absent.
The models column names the models that actually answered each row's calls (the gateway forwards
only the run's model and the tool's auxiliary models), and the total line every model of the run.
"""

from __future__ import annotations

from typing import Any

from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.runstore import RunStore
from reqbench.report.tables import TableData

COLUMNS = ("row", "calls", "replayed", "refused", "prompt tokens", "completion tokens", "cost (USD)", "models")


def row_model_usage(store: RunStore) -> list[dict[str, Any]]:
    """One entry per planned row that made model calls, in plan order:
    ``{row, calls, upstream, replay, refused, prompt_tokens, completion_tokens, cost_usd, cost_complete,
    models}`` (``models``: answered calls per model that answered them)."""
    totals = StoreRecorder.for_store(store).totals()
    return [{"row": row.key, **totals[row.key]} for row in store.plan() if row.key in totals]


def model_usage_table(usage: list[dict[str, Any]]) -> TableData | None:
    """The report table of `row_model_usage` (None when no row used the gateway), with a total line."""
    if not usage:
        return None

    def cost(value: Any, complete: bool) -> str:
        return "—" if value is None else f"{value:.4f}" + ("" if complete else " (partial)")

    rows = [[u["row"], str(u["calls"]), str(u["replay"]), str(u["refused"]), str(u["prompt_tokens"]),
             str(u["completion_tokens"]), cost(u["cost_usd"], u["cost_complete"]), models_text(u.get("models"))]
            for u in usage]
    priced = [u["cost_usd"] for u in usage if u["cost_usd"] is not None]
    rows.append(["total", *(str(sum(u[k] for u in usage)) for k in ("calls", "replay", "refused",
                                                                    "prompt_tokens", "completion_tokens")),
                 cost(sum(priced) if priced else None, all(u["cost_complete"] for u in usage)),
                 models_text(run_models(usage))])
    return TableData("model usage per row (recorded model calls)", list(COLUMNS), rows)


def run_models(usage: list[dict[str, Any]]) -> dict[str, int]:
    """Answered calls per model over every row of `usage`: the models the run actually used."""
    out: dict[str, int] = {}
    for u in usage:
        for model, n in (u.get("models") or {}).items():
            out[model] = out.get(model, 0) + n
    return dict(sorted(out.items()))


def models_text(models: dict[str, int] | None) -> str:
    """``gpt-4o-mini ×12, claude-haiku-4-5 ×2`` (most used first), or ``—``."""
    if not models:
        return "—"
    return ", ".join(f"{m} ×{n}" for m, n in sorted(models.items(), key=lambda kv: (-kv[1], kv[0])))
