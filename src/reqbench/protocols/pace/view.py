"""The PACE row page as data (`core.views`): every Code Point with its verdict, weight and deciding stage
(L0/L1/L2), its description, the structural check's reason, and per checklist criterion the criterion text,
the judge's judgment, severity, cited evidence and reasoning (PACE-Bench §3.3-3.4); the case score and the
symptom attribution (§5.3). The first point and every point not Covered are unfolded."""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.views import (
    AttemptRecord,
    Block,
    Code,
    Facts,
    Fold,
    Group,
    Heading,
    Inline,
    Json,
    Muted,
    Paragraph,
    RowView,
    Status,
    Strong,
    TableBlock,
    as_dict,
    as_list,
    fmt,
)
from reqbench.protocols.pace.row_result import PaceResult


def _criterion_rows(point: dict[str, Any]) -> tuple[tuple[Any, ...], ...]:
    """One line per criterion: its text (from the result's ``criteria``), the judgment, severity, the
    evidence the judge cited (quoted, monospace) and its reasoning."""
    texts = as_dict(point.get("criteria"))
    items = [i for i in as_list(as_dict(point.get("checklist")).get("evidence_checklist")) if isinstance(i, dict)]
    judged = {str(i.get("criterion_id")): i for i in items}
    rows = []
    for cid in [*texts, *(c for c in judged if c not in texts)]:
        item = judged.get(cid, {})
        evidence: list[Inline | Block] = [Paragraph((str(item["evidence"]),))] if item.get("evidence") else []
        evidence += [Code(c if isinstance(c, str) else json.dumps(c, ensure_ascii=False))
                     for c in as_list(item.get("citations"))]
        if not evidence:
            evidence.append(Muted("none cited"))
        if item.get("reasoning"):
            evidence.append(Paragraph((Muted(str(item["reasoning"])),)))
        judgment: Inline = Status(item.get("judgment")) if item else Muted("not judged")
        rows.append((Strong(cid), str(texts.get(cid, "—")), judgment, str(item.get("severity") or "—"),
                     tuple(evidence)))
    return tuple(rows)


def _point(point: dict[str, Any], first: bool) -> Fold:
    verdict = str(point.get("verdict"))
    summary: tuple[Inline, ...] = (Strong(str(point.get("point_id"))), Status(verdict),
                                   Muted(f"weight {fmt(point.get('weight'))} · decided at {point.get('stage')}"))
    body: list[Block] = [Paragraph((str(point["description"]),))] if point.get("description") else []
    notes = (("structural check (L0)", as_dict(point.get("l0")).get("reason")), ("detail", point.get("detail")))
    body += [Paragraph((Muted(f"{label}: {text}"),)) for label, text in notes if text]
    body.append(TableBlock(("criterion", "text", "judgment", "severity", "cited evidence"), _criterion_rows(point),
                           name="criteria"))
    return Fold(summary, tuple(body), open=verdict != "Covered" or first, name="point")


def row_view(record: AttemptRecord) -> RowView:
    result = PaceResult.of(record.result)
    if not isinstance(result.points, list):
        return RowView(())
    folds = tuple(_point(p, i == 0) for i, p in enumerate(p for p in result.points if isinstance(p, dict)))
    return RowView((Heading("Code Points"), Facts((("PACE score", result.score), ("complete", result.complete))),
                    Group(folds, name="points"), Json(result.attribution, "symptom attribution")))
