"""Per-protocol parts of a row page (and of a run page): journey's chat between simulated user and
assistant, takeover's Phase-A response beside its RQ scores and the delivered diff's gates, pace's
Code Points with verdict and cited evidence, specpath's probe signature raster."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reqbench.core.execute.types import Row
from reqbench.core.store.selection import Attempt
from reqbench.report.viewer.blobs import blob_json
from reqbench.report.viewer.render import details, esc, fmt, json_block, kv_table, pre, status_span, table

if TYPE_CHECKING:
    from reqbench.report.viewer.server import RunContext


def _blob_json(run: RunContext, attempt: Attempt, name: str) -> Any:
    return blob_json(run, attempt, name)


def _probes(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def journey_panel(run: RunContext, row: Row, attempt: Attempt) -> str:
    transcript = _blob_json(run, attempt, "transcript.json")
    if not isinstance(transcript, dict):
        return ""
    parts = ['<h3>conversation</h3><div class="chat">']
    for turn in transcript.get("turns") or []:
        probes = _probes(turn.get("probes"))
        passed = sum(1 for v in probes.values() if v is True)
        statuses = turn.get("statuses_after") or {}
        checklist = " ".join(f'<span class="{esc(s)}">{esc(t)}:{esc(s)}</span>' for t, s in statuses.items())
        meta = (f"turn {esc(turn.get('index'))} · status {status_span(turn.get('status'))} · "
                f"user confidence {esc(fmt(turn.get('confidence_after')))} · tests {passed}/{len(probes)} "
                f"passing · steps {esc(turn.get('steps'))}")
        parts.append(f'<div class="msg user turn"><div class="meta">simulated user · turn '
                     f'{esc(turn.get("index"))}</div>{esc(turn.get("user_message"))}</div>')
        changed = ", ".join(map(str, turn.get("changed_files") or [])) or "no files"
        parts.append(f'<div class="msg assistant turn"><div class="meta">assistant · changed {esc(changed)}'
                     f'</div>{esc(turn.get("reply"))}<div class="meta">{meta}</div>'
                     f'<div class="meta">checklist: {checklist}</div></div>')
    if transcript.get("final_message"):
        parts.append(f'<div class="msg user turn"><div class="meta">simulated user · end '
                     f'({esc(transcript.get("end_reason"))})</div>{esc(transcript["final_message"])}</div>')
    parts.append("</div>")
    return "".join(parts)


def _scalars(d: Any) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in (d or {}).items() if isinstance(v, int | float | str | bool) or v is None] \
        if isinstance(d, dict) else []


def takeover_panel(run: RunContext, row: Row, attempt: Attempt) -> str:
    result = attempt.result
    parts = []
    response = _blob_json(run, attempt, "phase_a_response.json") or result.get("response")
    score = result.get("score") if isinstance(result.get("score"), dict) else None
    if response is not None or score is not None:
        rq = "".join(kv_table(_scalars(score.get(k)), k.upper()) for k in ("rq1", "rq2", "rq3")
                     if isinstance(score, dict) and isinstance(score.get(k), dict))
        left = ("<h4>Phase-A response</h4>" + pre(json.dumps(response, indent=2, ensure_ascii=False))
                if response is not None else "<p class='meta'>no Phase-A response</p>")
        right = "<h4>RQ scores</h4>" + (rq or "<p class='meta'>not scored</p>")
        parts.append(f'<h3>Phase A</h3><div class="two"><div>{left}</div><div>{right}</div></div>')
    delivery = result.get("delivery")
    if isinstance(delivery, dict):
        gates = [[esc(g), status_span(s)] for g, s in (delivery.get("statuses") or {}).items()]
        parts.append("<h3>delivery gates</h3>" + kv_table([("decision", delivery.get("decision")),
                                                              ("reason", delivery.get("reason")),
                                                              ("score", delivery.get("score"))])
                     + table(["gate", "status"], gates, cls="gates"))
    return "".join(parts)


def pace_panel(run: RunContext, row: Row, attempt: Attempt) -> str:
    points = attempt.result.get("points")
    if not isinstance(points, list):
        return ""
    rows = []
    for p in points:
        if not isinstance(p, dict):
            continue
        items = (p.get("checklist") or {}).get("evidence_checklist") or []
        evidence = "".join(
            f"<div><b>{esc(i.get('criterion_id'))}</b> {status_span(i.get('judgment'))} "
            f"({esc(i.get('severity'))}): {esc(i.get('evidence'))}"
            + "".join(f" <code>{esc(c if isinstance(c, str) else json.dumps(c))}</code>"
                      for c in i.get("citations") or []) + "</div>"
            for i in items if isinstance(i, dict))
        l0 = p.get("l0") or {}
        verdict = f'<span class="{esc(str(p.get("verdict")).replace(" ", ""))}">{esc(p.get("verdict"))}</span>'
        rows.append([esc(p.get("point_id")), verdict,
                     esc(fmt(p.get("weight"))), esc(p.get("stage")),
                     evidence + (f"<div class='meta'>{esc(l0.get('reason'))}</div>" if l0.get("reason") else "")])
    head = kv_table([("PACE score", attempt.result.get("score")), ("judge", attempt.result.get("judge")),
                     ("complete", attempt.result.get("complete"))])
    return ("<h3>Code Points</h3>" + head
            + table(["code point", "verdict", "weight", "stage", "cited evidence"], rows, cls="points")
            + json_block(attempt.result.get("attribution"), "symptom attribution"))


def raster(signature: dict[str, Any]) -> str:
    cells = "".join(f'<td class="{"on" if v is True else "off" if v is False else "na"}" '
                    f'title="{esc(k)}: {esc(v)}"></td>' for k, v in signature.items())
    return f'<table class="raster"><tr>{cells}</tr></table>'


def specpath_panel(run: RunContext, row: Row, attempt: Attempt) -> str:
    probes = _probes(attempt.result.get("probes"))
    if not probes:
        return f"<h3>probe signature</h3><p class='meta'>no probes ran ({esc(attempt.result.get('reason'))})</p>"
    listing = table(["probe", "passed"], [[esc(k), status_span("pass" if v else "fail")] for k, v in probes.items()])
    return "<h3>probe signature</h3>" + raster(probes) + details("probes", listing, open_=True)


def specpath_run_panel(run: RunContext) -> str:
    """The whole run's probe raster: one line per row, one cell per probe."""
    rows = []
    for r, outcome in run.store.outcomes():
        probes = _probes(outcome.result.get("probes"))
        rows.append([esc(r.key), raster(probes) if probes else f"<span class='meta'>"
                     f"{esc(outcome.result.get('reason'))}</span>"])
    return "<h2>Probe signature raster</h2>" + table(["row", "probes (green: pass)"], rows)


PANELS: dict[str, Callable[[RunContext, Row, Attempt], str]] = {
    "journey": journey_panel, "takeover": takeover_panel, "pace": pace_panel, "specpath": specpath_panel}
RUN_PANELS: dict[str, Callable[[RunContext], str]] = {"specpath": specpath_run_panel}
