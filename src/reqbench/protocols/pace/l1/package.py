"""The evidence package records (items, connections, package) and their rendering for the judge.

Owned here: what a package holds and how it reads (base context and base edges labelled as such, an
empty connection inventory stated), plus the exact-hunk selection of candidate diffs.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from reqbench.protocols.pace.l1.languages import Binding, Decl


@dataclass
class EvidenceItem:
    role: str
    """changed | base_context | expansion."""
    file: str
    qname: str
    change: str | None
    """added | modified | removed for candidate changes; None for base context."""
    start_line: int
    end_line: int
    header: str
    body: str
    text: str
    why: str


@dataclass
class Connection:
    kind: str
    source: str
    target: str
    file: str
    line: int
    text: str
    origin: str
    """candidate (added by the patch) | base (already present: context, no credit)."""


@dataclass
class EvidencePackage:
    point_id: str
    seeds: list[str]
    unresolved_seeds: list[str]
    changed: list[EvidenceItem] = field(default_factory=list)
    diffs: dict[str, str] = field(default_factory=dict)
    base_context: list[EvidenceItem] = field(default_factory=list)
    connections: list[Connection] = field(default_factory=list)
    expansions: list[EvidenceItem] = field(default_factory=list)
    inspected_scope: list[str] = field(default_factory=list)
    omissions: list[str] = field(default_factory=list)
    live: dict[str, dict[int, str]] = field(default_factory=dict, repr=False)
    """Per source file of `diffs`: line number -> code text of the lines that can run
    (`liveness.credited_lines`; empty for a file that does not parse). Read by the token-overlap
    heuristic only: neither rendered for a judge nor exported."""

    reachable: set[str] | None = field(default=None, repr=False)
    """Keys (``file::qname``) of the changed declarations reachable from the repository's entry points or
    tests (`reach.reachable`); None when not computed. Read by the token-overlap heuristic only."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        del d["live"], d["reachable"]
        d["connection_inventory_empty"] = not self.connections
        return d

    def render(self) -> str:
        """The text the judge reads. Base context and base edges are labelled as such."""
        out = [f"# Evidence for {self.point_id}", f"seeds: {', '.join(self.seeds) or '(none)'}"]
        if self.unresolved_seeds:
            out.append(f"seeds not found: {', '.join(self.unresolved_seeds)}")
        out.append("\n## Candidate declarations (changed by the candidate; complete text)")
        if not self.changed:
            out.append("(none: the candidate changed no declaration relevant to this point)")
        for it in self.changed:
            out.append(
                f"\n### [{it.change}] {it.file}::{it.qname} (lines {it.start_line}-{it.end_line})\n{it.text}"
            )
        out.append("\n## Exact candidate diffs")
        out.extend(self.diffs.values() or ["(none)"])
        out.append("\n## Connection inventory (call / assignment / import / export / registry / config)")
        if not self.connections:
            out.append("(empty: no edge connects the candidate's changes for this point)")
        for c in self.connections:
            out.append(f"- [{c.origin}] {c.kind}: {c.source} -> {c.target} at {c.file}:{c.line}: {c.text}")
        if self.expansions:
            out.append("\n## Targeted expansion")
            for it in self.expansions:
                label = f"candidate, {it.change}" if it.change else "BASE CONTEXT"
                out.append(f"\n### [{label}] {it.file}::{it.qname}\n{it.text}")
        out.append("\n## BASE CONTEXT (unchanged code; explains connections, earns no credit)")
        out.extend(f"\n### {it.file}::{it.qname}\n{it.text}" for it in self.base_context)
        if not self.base_context:
            out.append("(none)")
        out.append(
            f"\n## Inspected scope\n{len(self.inspected_scope)} files: "
            + ", ".join(self.inspected_scope[:40])
            + (" ..." if len(self.inspected_scope) > 40 else "")
        )
        out.append("## Evidence omissions\n" + ("\n".join(self.omissions) or "(none)"))
        return "\n".join(out) + "\n"


def _class_outline(d: Decl, methods: list[Decl]) -> str:
    """A class's own text with its methods elided (each method is an item of its own)."""
    lines = d.text.splitlines()
    drop: set[int] = set()
    for m in methods:
        drop.update(range(m.start_line - d.start_line, m.end_line - d.start_line + 1))
    kept = [ln for i, ln in enumerate(lines) if i not in drop]
    if drop:
        kept.append(f"    # ... {len(methods)} method(s) listed separately")
    return "\n".join(kept)


def item_of(
    d: Decl,
    role: str,
    change: str | None,
    why: str,
    max_lines: int | None = None,
    methods: list[Decl] | None = None,
) -> EvidenceItem:
    text = _class_outline(d, methods) if d.kind == "class" and methods else d.text
    if max_lines is not None and text.count("\n") >= max_lines:
        text = "\n".join(text.splitlines()[:max_lines]) + f"\n    ... ({d.end_line - d.start_line + 1} lines)"
    return EvidenceItem(role, d.file, d.qname, change, d.start_line, d.end_line, d.header, d.body, text, why)


def connection_of(b: Binding, origin: str) -> Connection:
    return Connection(b.kind.value, b.source, b.target, b.file, b.line, b.text, origin)


def binding_key(b: Binding) -> tuple[str, str, str, str, str]:
    return (b.file, b.kind.value, b.source, b.target, b.text)


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def relevant_hunks(diff: str, ranges: list[tuple[int, int]]) -> str:
    """The file header plus only the hunks whose new-side lines meet one of `ranges` (exact text)."""
    lines = diff.splitlines(keepends=True)
    head: list[str] = []
    hunks: list[tuple[int, int, list[str]]] = []
    for ln in lines:
        m = _HUNK.match(ln)
        if m:
            start = int(m.group(1))
            hunks.append((start, start + max(int(m.group(2) or 1), 1) - 1, [ln]))
        elif hunks:
            hunks[-1][2].append(ln)
        else:
            head.append(ln)
    kept = [h for a, b, h in hunks if any(a <= hi and lo <= b for lo, hi in ranges)]
    return "".join(head + [ln for h in kept for ln in h]) if kept else ""


def is_test_path(path: str) -> bool:
    """Test code (reached by hops it corroborates, but belongs to a point only when a seed names tests)."""
    rel = path.split("::")[0]
    name = rel.rsplit("/", 1)[-1]
    return (
        rel.startswith(("tests/", "test/"))
        or "/tests/" in rel
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or "/__tests__/" in f"/{rel}"
        or ".test." in name
        or ".spec." in name
    )
