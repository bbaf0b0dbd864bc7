"""The report of one run: the protocol's summary plus run accounting, as JSON, terminal tables and HTML.

The JSON payload (`reqbench report --json`) is ``{PROTOCOL_NAME: summary, "run": {...}}`` where "run"
holds the run's metadata and row counts (planned, scored, pending, invalid, unstarted, unfinished,
attempts), so attrition is always reported next to the scores (SpecPath: "every result reports its
actual support").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.store.runstore import RunStore
from reqbench.report.tables import TableData, summary_tables

RUN_KEY = "run"
STATUSES = ("scored", "pending", "invalid", "unstarted")


def build_payload(store: RunStore, protocol: Any) -> dict[str, Any]:
    """Call `protocol.summarize` on the selected outcomes and add the run accounting."""
    meta = store.meta
    summary = protocol.summarize(Path(meta.suite_path), store.outcomes())
    run = {"run_dir": str(store.run_dir), "suite": meta.suite_path, "protocol": meta.protocol,
           "options": meta.options, "created": meta.created, "reqbench_version": meta.reqbench_version,
           "counts": store.counts()}
    return {protocol.name: summary, RUN_KEY: run}


def status_by_condition(store: RunStore) -> dict[str, dict[str, int]]:
    """``{condition: {status: rows}}`` from each row's selected attempt."""
    out: dict[str, dict[str, int]] = {}
    for row, attempt, _ in store.selected_attempts():
        cell = out.setdefault(row.condition, dict.fromkeys(STATUSES, 0))
        cell[attempt.status.value if attempt else "unstarted"] += 1
    return out


def run_tables(payload: dict[str, Any], by_condition: dict[str, dict[str, int]]) -> list[TableData]:
    run = payload[RUN_KEY]
    facts = [["protocol", run["protocol"]], ["suite", run["suite"]], ["created", run["created"]],
             ["agent", str(run["options"].get("agent", ""))], ["sandbox", sandbox_statement(run["options"])],
             *[[k, str(v)] for k, v in run["counts"].items()]]
    tables = [TableData("run", ["", "value"], facts)]
    if by_condition:
        tables.append(TableData("rows by condition (selected attempt)", ["condition", *STATUSES],
                                [[c, *(str(v[s]) for s in STATUSES)] for c, v in by_condition.items()]))
    return tables


def sandbox_statement(options: dict[str, Any]) -> str:
    """How the run's agent was isolated, as every report states it (SECURITY.md)."""
    if options.get("unsafe_no_sandbox"):
        return ("UNSAFE: run with --unsafe-no-sandbox; the agent may have read answers or forged checks, "
                "so these scores are not protected")
    return "bubblewrap allow-list sandbox for real agents (control agents are harness code)"


def report_plots(payload: dict[str, Any], protocol_name: str,
                 by_condition: dict[str, dict[str, int]] | None = None) -> list[tuple[str, bytes]]:
    """The protocol's headline metrics with their intervals (`report.headline_plots`); attrition stays
    in the "rows by condition" table, where a count cannot be mistaken for a success rate."""
    from reqbench.report.headline_plots import headline_plots  # matplotlib loads only when plotting

    return headline_plots(protocol_name, payload[protocol_name])


def report_sections(payload: dict[str, Any], protocol_name: str,
                    by_condition: dict[str, dict[str, int]]) -> list[tuple[str, list[TableData]]]:
    return [(protocol_name, summary_tables(payload[protocol_name])),
            ("run", run_tables(payload, by_condition))]
