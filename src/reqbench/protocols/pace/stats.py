"""The dataset-statistics tables of a PACE suite (PACE-Bench §2 "The resulting suite" and Figure 3),
computed from its files.

`reqbench stats` prints them (`PaceProtocol.dataset_stats`):

* **cases**: per case the files and lines its reference patch changes, its Code Points and criteria
  (`sizes.case_size`), its repository size and its PRD length (`context_size.context_size`);
* **scale** (Figure 3): changed files, changed lines, Code Points and criteria per case as count, mean
  and quartiles (the paper: median 1,465 changed lines across 15 files), and the context each case gives
  (`context_size`): repository source files and lines (readable bases only) and PRD characters and words;
* **Code Point types** and **Code Point provenance**: each kind's (behavior, integration, ...) and each
  provenance's (explicit, derived, implicit) count and share of all Code Points.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from reqbench.core.stats.distribution import shares, spread
from reqbench.core.summary import Cell, Summary, SummaryTable
from reqbench.protocols.pace.case import Case, load_suite
from reqbench.protocols.pace.context_size import ContextSize, context_size
from reqbench.protocols.pace.sizes import CaseSize, case_size

CASES, SCALE = "cases (PACE-Bench §2)", "scale per case (Figure 3)"
TYPES, PROVENANCE = "Code Point types", "Code Point provenance"


def _cases(sizes: list[CaseSize], contexts: list[ContextSize]) -> SummaryTable:
    return SummaryTable(CASES, {s.case: {"files": s.files, "+lines": s.added, "-lines": s.removed,
                                         "changed lines": s.changed, "Code Points": s.points, "criteria": s.criteria,
                                         "repository files": c.source_files, "repository lines": c.source_lines,
                                         "PRD characters": c.prd_characters, "PRD words": c.prd_words}
                                for s, c in zip(sizes, contexts, strict=True)})


def _readable(values: list[int | None]) -> list[int]:
    """The sizes of the readable bases (the paper's repository statistics cover only those)."""
    return [v for v in values if v is not None]


def _scale(sizes: list[CaseSize], contexts: list[ContextSize]) -> SummaryTable:
    return SummaryTable(SCALE, {"changed files": spread([s.files for s in sizes]),
                                "changed lines": spread([s.changed for s in sizes]),
                                "Code Points": spread([s.points for s in sizes]),
                                "criteria": spread([s.criteria for s in sizes]),
                                "repository files": spread(_readable([c.source_files for c in contexts])),
                                "repository lines": spread(_readable([c.source_lines for c in contexts])),
                                "PRD characters": spread([c.prd_characters for c in contexts]),
                                "PRD words": spread([c.prd_words for c in contexts])})


def dataset_stats(path: Path) -> Summary:
    """The tables of the suite (or single case) at `path`."""
    cases: list[Case] = load_suite(Path(path))[1]
    sizes, contexts = [case_size(c) for c in cases], [context_size(c) for c in cases]
    points = [p for c in cases for p in c.points]
    overview: dict[str, Cell] = {
        "cases": len(cases), "Code Points": len(points), "criteria": sum(s.criteria for s in sizes),
        "median changed lines": spread([s.changed for s in sizes])["median"],
        "median changed files": spread([s.files for s in sizes])["median"],
        "median repository lines": spread(_readable([c.source_lines for c in contexts]))["median"],
        "median PRD words": spread([c.prd_words for c in contexts])["median"]}
    return Summary(overview=overview, tables=[
        _cases(sizes, contexts), _scale(sizes, contexts), SummaryTable(TYPES, shares(Counter(p.kind for p in points))),
        SummaryTable(PROVENANCE, shares(Counter(str(p.provenance) for p in points)))])
