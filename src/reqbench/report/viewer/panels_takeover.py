"""The takeover part of a row page: the requirement timeline (`takeover_timeline`) beside the Phase-A
response and how the scorer matched it on RQ1–RQ3, then the delivered diff beside the three gates
(build, target, regression) with each gate's log folded (ReqMemBench §3.1, §4.1–4.3)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from reqbench.core.execute.types import Row
from reqbench.core.store.selection import Attempt
from reqbench.report.viewer.blobs import blob_json, blob_text
from reqbench.report.viewer.render import details, diff_html, esc, fmt, kv_table, pre, status_span, table
from reqbench.report.viewer.takeover_timeline import timeline_html

if TYPE_CHECKING:
    from reqbench.report.viewer.server import RunContext

_RQ_SCALARS = {
    "rq1": ("status",),
    "rq2": ("status", "attribute_score", "coverage", "matched_state_score", "n_pred", "n_gold", "n_matched"),
    "rq3": ("status", "gold_decision", "decision", "decision_correct", "post_state_score", "exact",
            "blocking_issue_f1", "question_validity", "n_pred", "n_gold", "n_matched"),
}


def _rq1_facts(rq1: dict[str, Any]) -> list[tuple[str, Any]]:
    facts: list[tuple[str, Any]] = [("status", rq1.get("status"))]
    for part in ("requirement", "evidence"):
        block = rq1.get(part)
        if isinstance(block, dict):
            facts += [(f"{part} {k}", v) for k, v in block.items() if isinstance(v, int | float | str)]
    return facts


def _matches(name: str, rq: dict[str, Any]) -> str:
    """Which response requirement the scorer paired with which gold requirement (and how well)."""
    if name == "rq1":
        pairs = rq.get("matches") or []
        rows = [[esc(p[0]), esc(p[1]), "—"] for p in pairs if isinstance(p, list | tuple) and len(p) >= 2]
    else:
        rows = [[esc(p.get("prediction_ref")), esc(p.get("gold_ref")), esc(fmt(p.get("state_score")))]
                for p in rq.get("requirements") or [] if isinstance(p, dict)]
    if not rows:
        return "<p class='meta'>no requirement matched</p>"
    return table(["response ref", "gold requirement", "state score"], rows, cls=f"matches {name}")


def phase_a_html(run: RunContext, attempt: Attempt) -> str:
    result = attempt.result
    response = blob_json(run, attempt, "phase_a_response.json") or result.get("response")
    score = result.get("score") if isinstance(result.get("score"), dict) else None
    phase_a = result.get("phase_a") if isinstance(result.get("phase_a"), dict) else {}
    if response is None and score is None and not phase_a:
        return "<h3>Phase A</h3><p class='meta'>this condition has no Phase A</p>"
    parts = ["<h3>Phase A</h3>"]
    if phase_a:
        parts.append(kv_table([("decision", phase_a.get("decision")), ("valid", phase_a.get("valid")),
                               ("problems", "; ".join(map(str, phase_a.get("problems") or [])) or None)]))
    for name in ("rq1", "rq2", "rq3"):
        rq = score.get(name) if score else None
        if not isinstance(rq, dict):
            continue
        facts = _rq1_facts(rq) if name == "rq1" else [(k, rq.get(k)) for k in _RQ_SCALARS[name] if k in rq]
        parts.append(f"<h4>{name.upper()}</h4>" + kv_table(facts) + _matches(name, rq))
    if score is not None and not any(isinstance(score.get(n), dict) for n in _RQ_SCALARS):
        parts.append("<p class='meta'>not scored</p>")
    parts.append(details("Phase-A response", pre(json.dumps(response, indent=2, ensure_ascii=False)), open_=True)
                 if response is not None else "<p class='meta'>no Phase-A response</p>")
    return "".join(parts)


def delivery_html(run: RunContext, attempt: Attempt) -> str:
    result = attempt.result
    delivery = result.get("delivery")
    if not isinstance(delivery, dict):
        return ""
    checks: dict[str, Any] = result["checks"] if isinstance(result.get("checks"), dict) else {}
    gates = []
    for gate, status in (delivery.get("statuses") or {}).items():
        d: dict[str, Any] = checks[gate] if isinstance(checks.get(gate), dict) else {}
        log = "".join(pre(str(d[k])) for k in ("stdout_tail", "stderr_tail") if d.get(k))
        gates.append([esc(gate), status_span(status),
                      details(f"{esc(gate)} log", log, open_=status not in ("PASS", "pass")) if log else ""])
    patch = blob_text(run, attempt, "submission.patch")
    left = "<h4>delivered diff</h4>" + (diff_html(patch) if patch is not None
                                          else "<p class='meta'>nothing was delivered</p>")
    right = ("<h4>gates</h4>" + kv_table([("decision", delivery.get("decision")),
                                          ("reason", delivery.get("reason")), ("score", delivery.get("score"))])
             + table(["gate", "status", "log"], gates, cls="gates"))
    return f'<h3>delivery</h3><div class="two delivery"><div>{left}</div><div>{right}</div></div>'


def takeover_panel(run: RunContext, row: Row, attempt: Attempt) -> str:
    timeline = timeline_html(run.store.meta.suite_path, row.task_id)
    return (f'<div class="two takeover"><div class="timeline-col">{timeline}</div>'
            f'<div class="phase-a">{phase_a_html(run, attempt)}</div></div>' + delivery_html(run, attempt))
