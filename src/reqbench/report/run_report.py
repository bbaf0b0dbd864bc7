"""The report of one run: the protocol's summary plus run accounting, as JSON, terminal tables and HTML.

The JSON payload (`reqbench report --json`) is ``{PROTOCOL_NAME: summary, "run": {...}}`` where "run"
holds the run's metadata and row counts (planned, scored, pending, invalid, unstarted, unfinished,
attempts), so attrition is always reported next to the scores (SpecPath: "every result reports its
actual support").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reqbench.core.sandbox import CONTROL_AGENTS
from reqbench.core.store.runstore import RunStore
from reqbench.report.tables import TableData, summary_tables

RUN_KEY = "run"
STATUSES = ("scored", "pending", "invalid", "unstarted")


def build_payload(store: RunStore, protocol: Any) -> dict[str, Any]:
    """Call `protocol.summarize` on the selected outcomes and add the run accounting."""
    meta = store.meta
    summary = protocol.summarize(Path(meta.suite_path), store.outcomes())
    provenance = {k: v for k, v in meta.provenance.items() if k != "suite_files"}
    run = {"run_dir": str(store.run_dir), "suite": meta.suite_path, "protocol": meta.protocol,
           "options": meta.options, "created": meta.created, "reqbench_version": meta.reqbench_version,
           "provenance": provenance, "counts": store.counts(), "why_unmeasured": unmeasured_reasons(store)}
    return {protocol.name: summary, RUN_KEY: run}


def unmeasured_reasons(store: RunStore) -> list[dict[str, Any]]:
    """Why rows are invalid or pending: one entry per (status, reason) with its row count and one example
    row, most frequent first. The reason is the first line of the selected attempt's detail."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for row, outcome in store.outcomes():
        if outcome.status.value not in ("invalid", "pending"):
            continue
        lines = (outcome.detail or "").strip().splitlines()
        reason = (lines[-1] if lines and lines[0].startswith("Traceback") else lines[0] if lines
                  else "no detail recorded")[:160]
        entry = groups.setdefault((outcome.status.value, reason),
                                  {"status": outcome.status.value, "reason": reason, "rows": 0,
                                   "example": f"{row.task_id}/{row.condition}/r{row.repeat}"})
        entry["rows"] += 1
    return sorted(groups.values(), key=lambda e: (-e["rows"], e["status"], e["reason"]))


def status_by_condition(store: RunStore) -> dict[str, dict[str, int]]:
    """``{condition: {status: rows}}`` from each row's selected attempt."""
    out: dict[str, dict[str, int]] = {}
    for row, attempt, _ in store.selected_attempts():
        cell = out.setdefault(row.condition, dict.fromkeys(STATUSES, 0))
        cell[attempt.status.value if attempt else "unstarted"] += 1
    return out


def run_tables(payload: dict[str, Any], by_condition: dict[str, dict[str, int]]) -> list[TableData]:
    run = payload[RUN_KEY]
    facts = [*provenance_facts(run), *[[k, str(v)] for k, v in run["counts"].items()]]
    tables = [TableData("run", ["", "value"], facts)]
    why = run.get("why_unmeasured") or []
    if why:
        tables.append(TableData("why rows are not measured", ["status", "rows", "reason", "example"],
                                [[w["status"], str(w["rows"]), w["reason"], w["example"]] for w in why]))
    if by_condition:
        tables.append(TableData("rows by condition (selected attempt)", ["condition", *STATUSES],
                                [[c, *(str(v[s]) for s in STATUSES)] for c, v in by_condition.items()]))
    return tables


def provenance_facts(run: dict[str, Any]) -> list[list[str]]:
    """What was evaluated, as ``[label, value]`` pairs: every report (terminal, JSON, HTML) shows them."""
    options, prov = run["options"], run.get("provenance") or {}
    agent_facts = prov.get("agent") or {}
    agent_opts = options.get("agent_options") or {}
    facts = [["protocol", run["protocol"]], ["suite", run["suite"]],
             ["suite hash", str(prov.get("suite_hash", "—"))[:16]],
             ["agent", str(options.get("agent", ""))],
             ["agent program", " ".join(filter(None, [agent_facts.get("program_path") or agent_facts.get("program"),
                                                      agent_facts.get("version")])) or "—"],
             ["model", str(agent_opts.get("model", "—"))], ["judge", str(options.get("judge", ""))],
             ["conditions", ", ".join(options.get("conditions") or []) or "(protocol default)"],
             ["repeats / seed", f"{options.get('repeats', 1)} / {options.get('seed', '')}"],
             ["sandbox", sandbox_statement(options, agent_facts.get("isolation"))], ["created", run["created"]],
             ["reqbench", str(run.get("reqbench_version", ""))]]
    return facts


def sandbox_statement(options: dict[str, Any], isolation: str | None = None) -> str:
    """How the run's agent was isolated, as every report states it (SECURITY.md)."""
    if options.get("unsafe_no_sandbox"):
        return ("UNSAFE: run with --unsafe-no-sandbox; the agent may have read answers or forged checks, "
                "so these scores are not protected")
    if str(options.get("agent", "")).partition(":")[0] in CONTROL_AGENTS:
        where = {"bwrap": "bubblewrap", None: "bubblewrap where available"}.get(isolation, str(isolation))
        return f"control agent (harness code); checks isolated by {where}"
    return "bubblewrap allow-list sandbox (no capabilities, own namespaces, no network)"


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
