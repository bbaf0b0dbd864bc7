"""The report of one run: the suite's typed `Summary` plus run accounting, as JSON, terminal tables and HTML.

The JSON payload (`reqbench report --json`) is ``{PROTOCOL_NAME: summary, "run": {...}, "summary": {...}}``:
under the protocol's name its own JSON document (`Summary.data`, the documented shape of its numbers),
under "summary" the typed summary (`Summary.to_json`: overview, tables, headline, plots), and "run"
holds the run's metadata and row counts (planned, scored, pending, invalid, unstarted, unfinished,
attempts) and the attrition by reason per condition (`core.execute.attrition`), so attrition is always
reported next to the scores (SpecPath: "every result reports its actual support"), and each row's
model calls, tokens and cost as the model gateway measured them (``run.model_usage``, `model_usage`).

A run may hold several gradings (`reqbench regrade`): the report uses one (`grading`, default ``original``),
and lists every grading with its headline numbers (``run.gradings``). Gradings are never pooled (SpecPath §4.3:
the longer-budget re-runs are "never pooled with the 1,200-second results"; `core.store.selection`): the report of
another grading covers only the rows it graded, and its first heading names that denominator
(``run.rows_by_grading`` of ``run.planned_rows``, `grading_heading`).
"""

from __future__ import annotations

from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.execute.attrition import attrition_table
from reqbench.core.execute.outcomes import reason_label
from reqbench.core.execute.run_inputs import input_statements
from reqbench.core.execute.suite import Suite
from reqbench.core.sandbox import CONTROL_AGENTS
from reqbench.core.store.runstore import RunStore
from reqbench.core.store.selection import ORIGINAL
from reqbench.core.summary import Cell, Summary, cell_from_json, cell_to_json, unavailable
from reqbench.report.model_usage import model_usage_table, models_text, row_model_usage, run_models
from reqbench.report.tables import TableData, format_cell, summary_tables

RUN_KEY = "run"
SUMMARY_KEY = "summary"
STATUSES = ("scored", "pending", "invalid", "unstarted")
NOT_GRADED = "not in grading"
"""The "rows by condition" column (in place of ``unstarted``) of a report of a grading other than ``original``:
rows that grading did not grade, so they have no number in this report."""


def pick_grading(store: RunStore, grading: str | None) -> str:
    """`grading` if the run has it (else an `InputError` naming the ones it has); None -> ``original``, the
    primary grading: a regrade or a longer-budget re-run (SpecPath §4.3: "never pooled with the 1,200-second
    results") is reported only when asked for by its label, as `reqbench study report` reads runs too."""
    labels = [g["label"] for g in store.gradings()]
    if grading is None:
        return ORIGINAL
    if grading not in labels:
        raise InputError(f"no grading {grading!r} in this run; it has: {', '.join(labels)}",
                         file=str(store.run_dir), item="--grading")
    return grading


def build_payload(store: RunStore, suite: Suite, grading: str | None = None) -> dict[str, Any]:
    """Call `suite.summarize` on the selected outcomes (of `grading`, default ``original``) and add the
    run accounting."""
    meta = store.meta
    grading = pick_grading(store, grading)
    summary = suite.summarize(store.outcomes(grading=grading))
    provenance = {k: v for k, v in meta.provenance.items() if k != "suite_files"}
    planned = store.selected_attempts(grading)
    # a row another grading did not grade is not in its report (not "unstarted"): it has no number there
    selected = [s for s in planned if s[1] is not None or grading == ORIGINAL]
    by_grading: dict[str, int] = {}
    for _, attempt, _ in selected:
        if attempt is not None:
            by_grading[attempt.grading] = by_grading.get(attempt.grading, 0) + 1
    run = {"run_dir": str(store.run_dir), "suite": meta.suite_path, "protocol": meta.protocol,
           "options": meta.options, "created": meta.created, "reqbench_version": meta.reqbench_version,
           "provenance": provenance, "counts": store.counts(), "grading": grading,
           "rows_by_grading": by_grading, "planned_rows": len(planned), "gradings": gradings_overview(store, suite),
           "attrition": attrition_table((row.condition, None if a is None else store.to_outcome(
               a, with_artifacts=False), bool(a and a.result.operational_failure))
               for row, a, _ in selected),
           "why_unmeasured": unmeasured_reasons(store, grading), "model_usage": row_model_usage(store)}
    return {suite.protocol.name: dict(summary.data), RUN_KEY: run, SUMMARY_KEY: summary.to_json()}


def payload_summary(payload: dict[str, Any], protocol_name: str) -> Summary:
    """The typed summary of a payload made by `build_payload`."""
    typed = payload.get(SUMMARY_KEY)
    if not isinstance(typed, dict):
        return unavailable("the payload has no typed summary")
    return Summary.from_json(typed, payload.get(protocol_name))


def gradings_overview(store: RunStore, suite: Suite) -> list[dict[str, Any]]:
    """Every grading of the run with its judge, whether checks were re-run, and its headline numbers."""
    out = []
    gradings = store.gradings()
    for g in gradings:
        headline: dict[str, Cell] = {}
        if len(gradings) > 1:
            try:
                headline = dict(suite.summarize(store.outcomes(grading=g["label"])).headline)
            except Exception as exc:  # a summary that cannot be built must not hide the others
                headline = {"error": str(exc)}
        out.append({**g, "headline": {k: cell_to_json(v) for k, v in headline.items()}})
    return out


def unmeasured_reasons(store: RunStore, grading: str = "original") -> list[dict[str, Any]]:
    """Why rows are invalid or pending: one entry per (status, reason) with its row count and one example
    row, most frequent first. The reason is the outcome's reason (`core.execute.outcomes`), or the first
    line of the detail for rows stored without one; `example_detail` is that row's detail."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for row, outcome in store.outcomes(grading=grading):
        if outcome.status.value not in ("invalid", "pending"):
            continue
        reason = reason_label(outcome.reason, outcome.detail)
        entry = groups.setdefault((outcome.status.value, reason),
                                  {"status": outcome.status.value, "reason": reason, "rows": 0,
                                   "example": f"{row.task_id}/{row.condition}/r{row.repeat}",
                                   "example_detail": reason_label("", outcome.detail)})
        entry["rows"] += 1
    return sorted(groups.values(), key=lambda e: (-e["rows"], e["status"], e["reason"]))


def status_by_condition(store: RunStore, grading: str = "original") -> dict[str, dict[str, int]]:
    """``{condition: {status: rows}}`` from each row's selected attempt (`STATUSES`)."""
    out: dict[str, dict[str, int]] = {}
    missing = "unstarted" if grading == ORIGINAL else NOT_GRADED
    columns = [*STATUSES[:-1], missing]
    for row, attempt, _ in store.selected_attempts(grading):
        cell = out.setdefault(row.condition, dict.fromkeys(columns, 0))
        cell[attempt.status.value if attempt else missing] += 1
    return out


def run_tables(payload: dict[str, Any], by_condition: dict[str, dict[str, int]]) -> list[TableData]:
    run = payload[RUN_KEY]
    facts = [*provenance_facts(run), *[[k, str(v)] for k, v in run["counts"].items()]]
    tables = [TableData("run", ["", "value"], facts)]
    why = run.get("why_unmeasured") or []
    if why:
        tables.append(TableData("why rows are not measured", ["status", "rows", "reason", "example"],
                                [[w["status"], str(w["rows"]), w["reason"],
                                  w["example"] + (f" ({w['example_detail']})"
                                                  if w.get("example_detail") not in (None, w["reason"]) else "")]
                                 for w in why]))
    attrition = run.get("attrition") or {}
    if attrition:
        columns = list(next(iter(attrition.values())))
        tables.append(TableData("attrition by reason (rows)", ["condition", *columns],
                                [[c, *(str(v.get(k, 0)) for k in columns)] for c, v in attrition.items()]))
    gradings = run.get("gradings") or []
    if len(gradings) > 1:
        tables.append(TableData(f"gradings (this report: {run.get('grading')})",
                                ["grading", "judge", "checks re-run", "created", "rows here", "headline"],
                                [[g["label"], g["judge"], "yes" if g["checks"] else "no", g["created"],
                                  str((run.get("rows_by_grading") or {}).get(g["label"], 0)),
                                  "; ".join(f"{k}: {format_cell(cell_from_json(v))}" for k, v in g["headline"].items())]
                                 for g in gradings]))
    usage_table = model_usage_table(run.get("model_usage") or [])
    if usage_table is not None:
        tables.append(usage_table)
    if by_condition:
        columns = list(next(iter(by_condition.values())))  # `status_by_condition`: STATUSES or NOT_GRADED last
        tables.append(TableData("rows by condition (selected attempt)", ["condition", *columns],
                                [[c, *(str(v.get(s, 0)) for s in columns)] for c, v in by_condition.items()]))
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
             ["model", str(agent_opts.get("model", "—"))],
             ["models used (gateway)", models_text(run_models(run.get("model_usage") or []))],
             ["judge", str(options.get("judge", ""))],
             ["conditions", ", ".join(options.get("conditions") or []) or "(protocol default)"],
             ["repeats / seed", f"{options.get('repeats', 1)} / {options.get('seed', '')}"],
             ["sandbox", sandbox_statement(options, agent_facts.get("isolation"))],
             ["task environments", environments_statement(prov.get("environments"))],
             ["model prices", pricing_statement(options, prov.get("prices"))],
             *([label, text] for label, text in input_statements(prov)), ["created", run["created"]],
             ["reqbench", str(run.get("reqbench_version", ""))]]
    return facts


def environments_statement(keys: Any) -> str:
    """Where the rows' code ran (DESIGN §14): the run's environment and how many tasks brought their own, by
    key prefix; "host" when none did."""
    if not isinstance(keys, dict) or not (keys.get("run") or keys.get("tasks")):
        return "host (no task environment)"
    tasks = keys.get("tasks") or {}
    parts = [f"run {str(keys['run'])[:12]}"] if keys.get("run") else []
    if tasks:
        distinct = sorted({str(k)[:12] for k in tasks.values()})
        parts.append(f"{len(tasks)} task(s) in {len(distinct)}: {', '.join(distinct[:3])}"
                     + (" ..." if len(distinct) > 3 else ""))
    return "; ".join(parts)


def sandbox_statement(options: dict[str, Any], isolation: str | None = None) -> str:
    """How the run's agent was isolated, as every report states it (SECURITY.md), and whether its model
    provider could act outside the sandbox for it (``--allow-provider-tools``)."""
    return _isolation_statement(options, isolation) + (
        "; PROVIDER TOOLS allowed (--allow-provider-tools): the model provider could search, fetch and run code "
        "for the agent outside the sandbox, and their fees are not in the dollar budgets"
        if options.get("allow_provider_tools") else "")


def _isolation_statement(options: dict[str, Any], isolation: str | None) -> str:
    if options.get("unsafe_no_sandbox"):
        return ("UNSAFE: run with --unsafe-no-sandbox; the agent may have read answers or forged checks, "
                "so these scores are not protected")
    if str(options.get("agent", "")).partition(":")[0] in CONTROL_AGENTS:
        where = {"bwrap": "bubblewrap", None: "bubblewrap where available"}.get(isolation, str(isolation))
        return f"control agent (harness code); checks isolated by {where}"
    return "bubblewrap allow-list sandbox (no capabilities, own namespaces, no network)"


def pricing_statement(options: dict[str, Any], sources: dict[str, Any] | None = None) -> str:
    """At which prices the gateway charged the run's model calls -- each layer in force, most specific first, as
    the run recorded them when it started (`core.execute.price_source`; a run from before names the built-in
    table) -- and whether unpriced models passed a dollar budget (``--allow-unpriced``)."""
    prices = options.get("prices") or {}
    sources = sources or {}
    layers = []
    if prices:
        origin = sources.get("run_prices_from")
        layers.append("this run's: " + ", ".join(f"{m} {p[0]:g}/{p[1]:g}" for m, p in sorted(prices.items()))
                      + " USD per 1M" + (f" (from {origin})" if origin else ""))
    for key in ("agent_file", "table_file"):
        file = sources.get(key)
        if isinstance(file, dict) and file.get("path"):
            digest = str(file.get("sha256") or "unreadable")[:12]
            layers.append(f"price file {file['path']} ({file.get('from', key)}, sha256 {digest})")
    layers.append("built-in table")
    text = " over ".join(layers)
    if options.get("allow_unpriced"):
        text += ("; UNPRICED models allowed (--allow-unpriced): their cost is unknown and dollar budgets do not "
                 "bound them")
    return text


def report_plots(payload: dict[str, Any], protocol_name: str,
                 by_condition: dict[str, dict[str, int]] | None = None) -> list[tuple[str, bytes]]:
    """The summary's plots (`report.headline_plots`); attrition stays in the "rows by condition" table,
    where a count cannot be mistaken for a success rate."""
    from reqbench.report.headline_plots import headline_plots  # matplotlib loads only when plotting

    return headline_plots(payload_summary(payload, protocol_name).plots)


def grading_heading(run: dict[str, Any]) -> str:
    """Which grading the numbers come from and over which rows, as the report's first heading names it:
    ``grading original``, or for another grading its own rows only (never pooled, `core.store.selection`):
    ``grading rerun-2400: 1 of 21 planned rows (the rows it graded; the other 20 are in grading original
    only)``."""
    grading = str(run.get("grading") or ORIGINAL)
    if grading == ORIGINAL:
        return f"grading {grading}"
    graded = int((run.get("rows_by_grading") or {}).get(grading, 0))
    planned = run.get("planned_rows")
    if not isinstance(planned, int):  # a payload from before the denominator was recorded
        return f"grading {grading}: {graded} row(s), the rows it graded"
    return (f"grading {grading}: {graded} of {planned} planned rows (the rows it graded; the other "
            f"{planned - graded} are in grading {ORIGINAL} only)")


def report_sections(payload: dict[str, Any], protocol_name: str,
                    by_condition: dict[str, dict[str, int]]) -> list[tuple[str, list[TableData]]]:
    heading = f"{protocol_name}, {grading_heading(payload[RUN_KEY])}"
    return [(heading, summary_tables(payload_summary(payload, protocol_name))),
            ("run", run_tables(payload, by_condition))]

