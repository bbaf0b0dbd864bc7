"""Grounding of L2 judgments: every covered/partial entry must cite evidence that exists (paper §3.1 L2,
appendix "Constrained Semantic Judgment": "for every criterion, cite the declaration, behavior, or
integration edge that supports the judgment"; "the evaluator verifies ... before accepting").

The paper asks the judge to cite; this module makes the evaluator check the citation, so a judge that was
talked into "all covered" by text in the candidate cannot credit code that is not there. A citation
``{file, start_line, end_line, quote}`` verifies when the quote (whitespace-normalised, diff ``+``
prefixes dropped) occurs in one *candidate-contributed* unit of the package -- a changed declaration, a
candidate expansion, a hunk of an exact candidate diff, or a candidate connection -- of the same file
whose line span meets the cited range. Base context earns no credit (rule 2), so it cannot be cited for
credit. A quote made only of comment or docstring-delimiter lines does not verify: a comment asserting
that a criterion is met is not evidence that it is.

Rules applied to an answer (`verify`):

* a ``covered`` or ``partial`` entry of a ``require`` criterion needs at least one citation;
* every citation given, for any entry, must verify;
* a ``forbid`` criterion judged covered may cite nothing (absence of a violation in the inspected scope
  cannot be quoted), but what it cites must verify.

`l2._ask` re-asks once with the failures as feedback; a second ungrounded answer leaves the point
Unresolved, which blocks the case score (paper §3.1: unresolved evidence blocks a final score).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from reqbench.protocols.pace.l1.evidence import EvidencePackage
from reqbench.protocols.pace.models import Checklist, CodePoint, Judgment, Polarity

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_COMMENT = re.compile(r'^(?:#|//|/\*|\*|--|"""|\'\'\'|<!--)')
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Unit:
    """One citable piece of candidate evidence."""

    file: str
    start: int
    end: int
    text: str
    source: str


def _norm_file(path: str) -> str:
    p = path.strip()
    for prefix in ("./", "a/", "b/"):
        if p.startswith(prefix):
            p = p[len(prefix):]
    return p


def _norm_text(text: str) -> str:
    lines = [ln[1:] if ln.startswith("+") and not ln.startswith("+++") else ln for ln in text.splitlines()]
    return _WS.sub(" ", " ".join(lines)).strip()


def _diff_units(file: str, diff: str) -> list[Unit]:
    units: list[Unit] = []
    start = end = 0
    body: list[str] = []
    for ln in diff.splitlines():
        m = _HUNK.match(ln)
        if m:
            if body:
                units.append(Unit(file, start, end, "\n".join(body), "diff"))
            start = int(m.group(1))
            end = start + max(int(m.group(2) or 1), 1) - 1
            body = []
        elif start and not ln.startswith(("-", "\\")):
            body.append(ln[1:] if ln[:1] in ("+", " ") else ln)
    if body:
        units.append(Unit(file, start, end, "\n".join(body), "diff"))
    return units


def candidate_units(pkg: EvidencePackage) -> list[Unit]:
    """Everything of the package a citation may point at (candidate contributions only)."""
    units = [Unit(it.file, it.start_line, it.end_line, it.text, "declaration") for it in pkg.changed]
    units += [Unit(it.file, it.start_line, it.end_line, it.text, "expansion")
              for it in pkg.expansions if it.change]
    for file, diff in pkg.diffs.items():
        units += _diff_units(file, diff)
    units += [Unit(c.file, c.line, c.line, c.text, "connection") for c in pkg.connections
              if c.origin == "candidate"]
    return units


def check_citation(units: list[Unit], file: str, start: int, end: int, quote: str) -> str | None:
    """None if the citation verifies, else why not (no quoted agent text in the reason)."""
    if start < 1 or end < start:
        return "bad line range"
    code_lines = [ln.strip().lstrip("+").strip() for ln in quote.splitlines()]
    code_lines = [ln for ln in code_lines if ln]
    if not code_lines:
        return "empty quote"
    if all(_COMMENT.match(ln) for ln in code_lines):
        return "quote is only comments"
    wanted, target = _norm_file(file), _norm_text(quote)
    in_file = [u for u in units if _norm_file(u.file) == wanted]
    if not in_file:
        return "file is not part of the candidate's evidence"
    spans = [u for u in in_file if u.start <= end and start <= u.end]
    if not spans:
        return "line range is outside the candidate's evidence for that file"
    if not any(target in _norm_text(u.text) for u in spans):
        return "quote not found at those lines"
    return None


def verify(point: CodePoint, checklist: Checklist, pkg: EvidencePackage | None,
           required: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """(per-entry audit records, problems). `required`: covered/partial require-criteria must cite."""
    units = candidate_units(pkg) if pkg is not None else []
    polarity = {c.criterion_id: c.polarity for c in point.criteria}
    audit: list[dict[str, Any]] = []
    problems: list[str] = []
    for entry in checklist.evidence_checklist:
        results = []
        for c in entry.citations:
            why = check_citation(units, c.file, c.start_line, c.end_line, c.quote)
            results.append({"file": c.file, "start_line": c.start_line, "end_line": c.end_line,
                            "verified": why is None, **({"reason": why} if why else {})})
            if why:
                problems.append(f"{entry.criterion_id}: citation {c.file}:{c.start_line}-{c.end_line} "
                                f"does not verify ({why})")
        credited = entry.judgment in (Judgment.COVERED, Judgment.PARTIAL)
        if required and credited and polarity.get(entry.criterion_id) is Polarity.REQUIRE and not results:
            problems.append(f"{entry.criterion_id}: judged {entry.judgment.value} without a citation")
        audit.append({"criterion_id": entry.criterion_id, "judgment": entry.judgment.value,
                      "citations": results})
    return audit, problems
