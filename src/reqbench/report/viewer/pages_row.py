"""The row page: the row's facts, then every attempt (selected first) with its submission diff, check
logs folded per check, the agent's trajectory step by step, the protocol's own part (its ``row_view``,
`protocol_views`) and the raw result folded at the end."""

from __future__ import annotations

import re

from reqbench.core.execute.settings import ProtocolResult
from reqbench.core.execute.types import Row
from reqbench.core.judges.spec import is_heuristic
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.selection import Attempt
from reqbench.report.rowfacts import row_facts
from reqbench.report.viewer.blobs import blob_text
from reqbench.report.viewer.blocks import blocks_html
from reqbench.report.viewer.pages_run import nav
from reqbench.report.viewer.protocol_views import row_view
from reqbench.report.viewer.render import (
    details,
    diff_html,
    esc,
    json_block,
    kv_table,
    page,
    pre,
    status_span,
    table,
)
from reqbench.report.viewer.run_context import RunContext
from reqbench.report.viewer.site import Site
from reqbench.report.viewer.trajectory import code, prose, trajectory_html

_DIFF = re.compile(r"(^patch$|\.diff$|\.patch$)")
_INPUT = re.compile(r"(^|_)(history|prompt|task|instructions|prd)(\.(md|txt))?$")
"""Artifacts that hold what the agent was given (a rendered history, a prompt, a task or PRD file)."""
_LOG = re.compile(r"(^|[_.])log($|[_.])")


def inputs_html(run: RunContext, attempt: Attempt) -> str:
    """What the agent received, as stored with the attempt (e.g. the rendered history), as text."""
    names = sorted(n for n in attempt.artifacts if _INPUT.search(n))
    if not names:
        return ""
    return "<h3>what the agent received</h3>" + "".join(
        details(esc(n), f'<div class="inputs">{prose(blob_text(run, attempt, n) or "")}</div>', open_=True)
        for n in names)


def logs_html(run: RunContext, attempt: Attempt) -> str:
    """Log artifacts (a verifier's log, ...), folded, monospace."""
    names = sorted(n for n in attempt.artifacts if _LOG.search(n) and not _DIFF.search(n))
    return "".join(details(f"log: {esc(n)}", code(blob_text(run, attempt, n) or "")) for n in names)


def judge_banner(run: RunContext, attempt: Attempt) -> str:
    """Which judge scored the row (the result's own ``judge``, else the run's ``--judge``), and a warning
    when it is a heuristic rather than a semantic judgment."""
    result = attempt.result
    judge = result.judge or run.store.meta.options.get("judge")
    if not isinstance(judge, str) or not judge:
        return ""
    if not is_heuristic(judge):
        return f'<p class="banner judge">judged by <b>{esc(judge)}</b></p>'
    notice = result.judge_notice
    return (f'<p class="banner judge heuristic">judged by <b>{esc(judge)}</b>, the offline heuristic: an '
            "approximation computed without a model, not a semantic judgment"
            + (f"<br><span class='meta'>{esc(notice)}</span>" if isinstance(notice, str) and notice else "")
            + "</p>")


def diffs_html(run: RunContext, attempt: Attempt, main_diff: bool = True) -> str:
    """The submission diff (unless the protocol's panel shows it) and any per-turn diffs, folded."""
    names = sorted(n for n in attempt.artifacts if _DIFF.search(n))
    main = [n for n in names if not n.startswith("turn_")] if main_diff else []
    if not main and not any(n.startswith("turn_") for n in names):
        return ""
    turns = [n for n in names if n.startswith("turn_")]
    parts = ["<h3>submission diff</h3>"] if main else []
    for name in main:
        parts.append(f'<p class="meta">{esc(name)}</p>' + diff_html(blob_text(run, attempt, name) or ""))
    if turns:
        parts.append(details(f"per-turn diffs ({len(turns)})", "".join(
            details(esc(n), diff_html(blob_text(run, attempt, n) or "")) for n in turns)))
    return "".join(parts)


def checks_html(run: RunContext, row: Row, attempt: Attempt) -> str:
    checks = run.store.check_results(row, attempt.attempt_no)
    if not checks:
        return ""
    parts = ["<h3>checks</h3>"]
    for c in checks:
        d = c["detail"] if isinstance(c["detail"], dict) else {}
        facts = [(k, d[k]) for k in ("exit_code", "wall_seconds", "detail") if d.get(k) not in (None, "")]
        logs = "".join(f"<p class='meta'>{esc(k)}</p>{pre(str(d[k]))}"
                       for k in ("stdout_tail", "stderr_tail") if d.get(k))
        body = (kv_table(facts) if facts else "") + (logs or '<p class="meta">no output</p>')
        parts.append(details(f"{esc(c['check'])}: {status_span(c['status'])}", body,
                             open_=c["status"] not in ("PASS", "pass")))
    return "".join(parts)


def attempt_html(run: RunContext, row: Row, attempt: Attempt) -> str:
    view = row_view(run, row, attempt)
    arts = [[f'<a href="{run.base}/artifact/{esc(sha)}">{esc(name)}</a>', esc(sha[:12])]
            for name, sha in sorted(attempt.artifacts.items())]
    parts = [f"<p class='meta'>{esc(attempt.kind)} · {esc(attempt.started)} → {esc(attempt.finished)}</p>",
             judge_banner(run, attempt), blocks_html(view.blocks), inputs_html(run, attempt),
             diffs_html(run, attempt, "diff" not in view.shows),
             "" if "checks" in view.shows else checks_html(run, row, attempt), trajectory_html(run, attempt),
             logs_html(run, attempt)]
    if attempt.detail:
        parts.append(details("detail", pre(attempt.detail)))
    if arts:
        parts.append(details(f"artifacts ({len(arts)})", table(["name", "sha256"], arts)))
    parts.append(json_block(attempt.result.stored(), "result JSON"))
    return "".join(parts)


def row_page(viewer: Site, run: RunContext, key: str) -> str | None:
    plan = {r.key: r for r in run.store.plan()}
    if key not in plan:
        return None
    row = plan[key]
    attempts = run.store.attempts(row)
    selected = run.store.selected_attempt(row)
    status = selected.status.value if selected else "unstarted"
    facts = row_facts(status, selected.reason if selected else "", selected.result if selected else ProtocolResult(),
                      selected.detail if selected else "", StoreRecorder.for_store(run.store).totals().get(key))
    parts = [f"<h1>{esc(key)}</h1>",
             kv_table([("task", row.task_id), ("condition", row.condition), ("agent", row.agent),
                       ("repeat", row.repeat), ("status", status), *facts.items(),
                       ("attempts", len(attempts))], "row")]
    if selected is None:
        parts.append("<p>No attempt yet.</p>")
    chosen = selected.attempt_no if selected else None
    ordered = ([selected] if selected else []) + [a for a in attempts if a.attempt_no != chosen]
    for a in ordered:
        title = (f"attempt {a.attempt_no}{' (selected)' if a.attempt_no == chosen else ''}: "
                 f"{status_span(a.status.value)}")
        if a.attempt_no == chosen:
            parts.append(f"<h2>{title}</h2>" + attempt_html(run, row, a))
        else:
            parts.append(details(title, attempt_html(run, row, a)))
    return page(key, "\n".join(parts), nav(viewer, run))
