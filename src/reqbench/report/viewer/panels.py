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
from reqbench.report.viewer.render import details, esc, fmt, json_block, kv_table, status_span, table, url

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


def _criterion_rows(point: dict[str, Any]) -> list[list[str]]:
    """One line per criterion: its text (from the result's ``criteria``), the judgment, severity, the
    evidence the judge cited (quoted, monospace) and its reasoning."""
    texts: dict[str, Any] = point["criteria"] if isinstance(point.get("criteria"), dict) else {}
    items = [i for i in (point.get("checklist") or {}).get("evidence_checklist") or [] if isinstance(i, dict)]
    judged = {str(i.get("criterion_id")): i for i in items}
    rows = []
    for cid in [*texts, *(c for c in judged if c not in texts)]:
        item = judged.get(cid, {})
        cites = "".join(f"<code>{esc(c if isinstance(c, str) else json.dumps(c, ensure_ascii=False))}</code> "
                        for c in item.get("citations") or [])
        evidence = (f"<div>{esc(item.get('evidence'))}</div>" if item.get("evidence") else "") + cites
        reasoning = f"<div class='meta'>{esc(item.get('reasoning'))}</div>" if item.get("reasoning") else ""
        judgment = status_span(item.get("judgment")) if item else "<span class='meta'>not judged</span>"
        rows.append([f"<b>{esc(cid)}</b>", esc(texts.get(cid, "—")), judgment, esc(item.get("severity") or "—"),
                     (evidence or "<span class='meta'>none cited</span>") + reasoning])
    return rows


def pace_panel(run: RunContext, row: Row, attempt: Attempt) -> str:
    """Every Code Point (the first and every one not Covered unfolded): verdict, weight and stage, its
    description, and per criterion the criterion text, judgment, severity and cited evidence (criterion
    texts are in results scored since they were stored)."""
    points = attempt.result.get("points")
    if not isinstance(points, list):
        return ""
    blocks: list[str] = []
    for p in (p for p in points if isinstance(p, dict)):
        verdict = str(p.get("verdict"))
        summary = (f'<b>{esc(p.get("point_id"))}</b> <span class="{esc(verdict.replace(" ", ""))}">{esc(verdict)}'
                   f'</span> <span class="meta">weight {esc(fmt(p.get("weight")))} · decided at '
                   f'{esc(p.get("stage"))}</span>')
        l0 = p.get("l0") or {}
        notes = "".join(f"<p class='meta'>{esc(label)}: {esc(text)}</p>" for label, text in
                        (("structural check (L0)", l0.get("reason")), ("detail", p.get("detail"))) if text)
        body = (f"<p>{esc(p.get('description'))}</p>" if p.get("description") else "") + notes + table(
            ["criterion", "text", "judgment", "severity", "cited evidence"], _criterion_rows(p), cls="criteria")
        blocks.append(details(summary, body, open_=verdict != "Covered" or not blocks, cls="point"))
    head = kv_table([("PACE score", attempt.result.get("score")), ("complete", attempt.result.get("complete"))])
    return ("<h3>Code Points</h3>" + head + f'<div class="points">{"".join(blocks)}</div>'
            + json_block(attempt.result.get("attribution"), "symptom attribution"))


def raster(signature: dict[str, Any], link: str = "") -> str:
    """One cell per probe (green: pass, red: fail, grey: not run); with `link`, each cell opens that row."""
    def cell(k: str, v: Any) -> str:
        inner = f'<a href="{link}" title="{esc(k)}: {esc(v)}"></a>' if link else ""
        return (f'<td class="{"on" if v is True else "off" if v is False else "na"}" title="{esc(k)}: {esc(v)}">'
                f"{inner}</td>")
    return f'<table class="raster"><tr>{"".join(cell(k, v) for k, v in signature.items())}</tr></table>'


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
        link = url(run.base + "/row", key=r.key)
        rows.append([f'<a href="{link}">{esc(r.key)}</a>', raster(probes, link) if probes else
                     f"<span class='meta'>{esc(outcome.result.get('reason'))}</span>"])
    return "<h2>Probe signature raster</h2>" + table(["row", "probes (green: pass)"], rows)


PANELS: dict[str, Callable[[RunContext, Row, Attempt], str]] = {
    "journey": journey_panel, "takeover": takeover_panel, "pace": pace_panel, "specpath": specpath_panel}
RUN_PANELS: dict[str, Callable[[RunContext], str]] = {"specpath": specpath_run_panel}
OWNED: dict[str, frozenset[str]] = {"takeover": frozenset({"diff", "checks"})}
"""Generic row-page sections a protocol's panel renders itself (takeover: the diff beside its gates)."""
