"""Per-protocol parts of a row page (and of a run page): journey's chat between simulated user and
assistant, takeover's requirement timeline, Phase A and gates (`panels_takeover`), pace's Code Points
with verdict and cited evidence, specpath's probe signature raster."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from reqbench.core.execute.types import Row
from reqbench.core.store.selection import Attempt
from reqbench.report.viewer.blobs import blob_json
from reqbench.report.viewer.panels_takeover import takeover_panel
from reqbench.report.viewer.render import details, esc, fmt, json_block, kv_table, status_span, table

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
OWNED: dict[str, frozenset[str]] = {"takeover": frozenset({"diff", "checks"})}
"""Generic row-page sections a protocol's panel renders itself (takeover: the diff beside its gates)."""
