"""Which of a candidate's added lines the `token-overlap` heuristic may count: code the candidate wires in.

The heuristic measures token recall against the reference's evidence, so any added text that carries the
right identifiers would raise it -- including code that never runs (a block under ``if 0:``, a function
nothing calls) and text that is no code at all. PACE-Bench's L1 rule is that an integration claim needs
"a source, a target and one of these observed edges" (appendix §13, the connection inventory), and that
credit is never "inferred from identifier presence" (§3.1), so a line counts only when it is live and
wired (`wired_package`):

* **live** (`l1.liveness`, decided on the whole file's syntax tree by the L1 localiser): not under a guard
  no run satisfies (constant conditions, ``False and ...``, ``__name__`` against a string that is neither
  ``"__main__"`` nor the module's own name, ``TYPE_CHECKING``, impossible ``sys.version_info`` checks,
  ``else`` of an always-true guard, loops over empty literals; JavaScript/TypeScript ``if (0)``,
  ``false && x``, ``typeof x === 'never'`` ...), not after an unconditional
  ``return``/``raise``/``throw``/``continue``/``break`` in the same block, not inside a nested function,
  class or lambda nothing in its function uses, not a literal-only statement (docstrings, bare strings);
  comments and the inner lines of strings spanning lines are dropped; a file that does not parse has no
  live line. A package built without that map (by hand) falls back to the diff's own lines, guard by
  guard (`live_added`);
* **wired**: inside a changed declaration that is reachable from the repository's entry points or tests
  (`l1.reach`, over the whole candidate index: roots are test declarations and what module and class top
  levels bind -- imports, registrations, exports, decorators, configuration) and reached through the
  point's inventory -- a modified base declaration, a declaration in a test file, or an added one that an
  edge of the L1 inventory targets (a call, import, export, registry, assignment or configuration
  connection, candidate or base) or whose name a live line of another reached declaration uses; or a
  module-level line that is itself an inventory edge or a constant assignment (``NAME = 90``). A chain of
  functions that only call each other, or an existing function nothing reachable calls, counts for nothing.

Everything else in source files (dead blocks, unreached new functions, bare module-level expressions) is
left out, so stuffing identifiers into code that is never wired in scores no more than the empty
candidate. Documentation and configuration files have no call graph and no behaviour: they count only for
a point about documentation or configuration (`counts_for`: its kind, or a retrieval hint naming the file).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Iterator

from reqbench.protocols.pace.l1.callgraph import last_segment
from reqbench.protocols.pace.l1.evidence import EvidenceItem, EvidencePackage, is_test_path
from reqbench.protocols.pace.l1.languages import is_source
from reqbench.protocols.pace.l1.languages.javascript import _parser as _js_parser
from reqbench.protocols.pace.l1.liveness.constant_conditions import module_names, truth
from reqbench.protocols.pace.l1.liveness.javascript import truth as js_truth

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")
_PY_GUARD = re.compile(r"^(\s*)(?:if|elif|while)\s+(.+?)\s*:\s*(?:#.*)?$")
_JS_GUARD = re.compile(r"^(\s*)(?:\}\s*else\s+)?(?:if|while)\s*\((.*)\)\s*\{\s*$")
_EXIT = re.compile(r"^(\s*)(?:return\b|raise\b|throw\b|continue\b|break\b)")
_CONST = re.compile(r"^[A-Za-z_]\w*\s*(?::\s*[\w\[\], .|]+)?\s*=\s*"
                    r"(?:-?\d[\d_.]*|True|False|None|'[^']*'|\"[^\"]*\")\s*,?\s*$")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*")
ABOUT_FILES = frozenset({"documentation", "configuration"})
"""Point kinds whose evidence may lie in documentation and configuration files (`counts_for`)."""


def never_true(condition: str, javascript: bool = False, module: str = "") -> bool:
    """Whether a guard's condition never holds at run time (its block is dead code): `liveness.constant_conditions`
    for Python (`module`, the file's path, names what ``__name__`` may be), `liveness.javascript.truth`
    for JavaScript/TypeScript."""
    if javascript:
        root = _js_parser("javascript").parse(f"if ({condition}) {{}}".encode()).root_node
        guard = root.named_children[0] if root.named_children and not root.has_error else None
        return guard is not None and js_truth(guard.child_by_field_name("condition")) is False
    try:
        return truth(ast.parse(condition.strip(), mode="eval").body, module_names(module)) is False
    except (SyntaxError, ValueError, RecursionError):
        return False


def _new_side(diff: str) -> Iterator[tuple[int, str, bool]]:
    """(new-file line number, text, added) of every line on the new side of a unified diff."""
    number = 0
    for raw in diff.splitlines():
        match = _HUNK.match(raw)
        if match:
            number = int(match.group(1))
            continue
        if raw.startswith(("+++", "---")) or raw.startswith("-") or not number:
            continue
        if raw.startswith(("+", " ")) or raw == "":
            yield number, raw[1:], raw.startswith("+")
            number += 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def live_added(diff: str, javascript: bool = False, credited: dict[int, str] | None = None,
               module: str = "") -> list[tuple[int, str]]:
    """(line number, code text) of the added lines of `diff` that can run (module docstring: **live**).

    `credited` is the file's `liveness.credited_lines` (decided on its whole syntax tree); without it (a
    file that does not parse) the diff's own lines decide, guard by guard."""
    if credited is not None:
        return [(n, credited[n]) for n, _line, added in _new_side(diff) if added and n in credited]
    out: list[tuple[int, str]] = []
    dead_at: int | None = None  # indentation of the dead block's guard or exit statement
    exit_block = False
    depth = 0  # JavaScript: brace depth inside a dead block
    for number, line, added in _new_side(diff):
        if not line.strip():
            continue
        indent = _indent(line)
        if dead_at is not None:
            if javascript and not exit_block:
                depth += line.count("{") - line.count("}")
                if depth <= 0:
                    dead_at = None
                continue
            if exit_block and indent == dead_at:
                continue  # a statement after the block's exit
            if exit_block and indent > dead_at:
                if added:  # the exit statement's own continuation line
                    out.append((number, line))
                continue
            if indent > dead_at:
                continue  # inside the dead guard's block
            dead_at = None
        guard = (_JS_GUARD if javascript else _PY_GUARD).match(line)
        if guard and never_true(guard.group(2), javascript, module):
            dead_at, exit_block, depth = indent, False, 1
        elif _EXIT.match(line) and not line.rstrip().endswith((":", "{")):
            dead_at, exit_block = indent, True
        if added:
            out.append((number, line))
    return out


def _enclosing(items: list[EvidenceItem], file: str, number: int) -> EvidenceItem | None:
    """The innermost changed declaration of `file` that holds line `number`."""
    holding = [i for i in items if i.file == file and i.start_line <= number <= i.end_line]
    return min(holding, key=lambda i: i.end_line - i.start_line, default=None)


def counts_for(path: str, kind: str, seeds: list[str]) -> bool:
    """Whether a change to file `path` may earn credit for a point of `kind` with retrieval `seeds`.

    Source files (Python, JavaScript/TypeScript) count for every point, as far as they are live and wired.
    Documentation and configuration files (anything else: ``NOTES.md``, ``docs/``, ``CHANGES``, ``*.toml``,
    ``*.json`` ...) have no behaviour to run: they count only for a point about documentation or
    configuration -- its kind is ``documentation`` or ``configuration`` (`ABOUT_FILES`), or one of its
    frozen retrieval hints names that very file."""
    return is_source(path) or kind in ABOUT_FILES or any(s.split("::")[0] == path for s in seeds)


def wired_package(pkg: EvidencePackage, kind: str = "behavior") -> EvidencePackage:
    """A copy of `pkg` holding only what the candidate wires in for a point of `kind` (module docstring):
    its diffs reduced to the wired added lines (one ``+line`` each, in file order; code text without
    comments), its candidate connections to the live ones of reachable code, and documentation and
    configuration files only where they count (`counts_for`); base connections stay. The token-overlap
    heuristic reads this copy only."""
    items = [i for i in pkg.changed if i.change in ("added", "modified")]
    code = {f: d for f, d in pkg.diffs.items() if is_source(f)}
    live = {f: live_added(d, not f.endswith((".py", ".pyi")), pkg.live.get(f), f) for f, d in code.items()}
    placed = {(f, n): (line, _enclosing(items, f, n)) for f, lines in live.items() for n, line in lines}
    edges = [c for c in pkg.connections
             if c.origin != "candidate" or c.file not in code or (c.file, c.line) in placed]
    targeted = {last_segment(c.target) for c in edges} - {""}
    reached = {i.qname for i in items
               if i.change == "modified" or _named(i) & targeted or is_test_path(i.file)}
    grown = True
    while grown:  # a declaration a reached one's live lines use is reached too
        used = {w for line, item in placed.values() if _counts(pkg, item, reached) for w in _IDENT.findall(line)}
        more = reached | {i.qname for i in items if _named(i) & used}
        grown, reached = more != reached, more
    edge_lines = {(c.file, c.line) for c in edges if c.origin == "candidate"}
    kept: dict[str, list[str]] = {}
    for (file, number), (line, item) in sorted(placed.items()):
        if item is None and ((file, number) in edge_lines or _CONST.match(line.strip())) \
                or _counts(pkg, item, reached):
            kept.setdefault(file, []).append("+" + line)
    wired_edges = [c for c in edges if c.origin != "candidate"
                   or (_wired_at(pkg, placed, reached, c.file, c.line) if c.file in code
                       else counts_for(c.file, kind, pkg.seeds))]
    diffs = {f: "\n".join(lines) for f, lines in kept.items()}
    diffs.update({f: d for f, d in pkg.diffs.items()  # no call graph: counted only where `counts_for` says
                  if f not in code and counts_for(f, kind, pkg.seeds)})
    return dataclasses.replace(pkg, diffs=diffs, connections=wired_edges)


def _counts(pkg: EvidencePackage, item: EvidenceItem | None, reached: set[str]) -> bool:
    """A changed declaration's lines count: it is reached through the inventory and, where the localiser
    computed it, reachable from the repository's entry points or tests (`l1.reach`)."""
    return item is not None and item.qname in reached and (
        pkg.reachable is None or f"{item.file}::{item.qname}" in pkg.reachable)


def _wired_at(pkg: EvidencePackage, placed: dict[tuple[str, int], tuple[str, EvidenceItem | None]],
              reached: set[str], file: str, number: int) -> bool:
    _, item = placed[(file, number)]
    return item is None or _counts(pkg, item, reached)


def _named(item: EvidenceItem) -> set[str]:
    """The names an edge may use for a declaration: its own, and its owner's for a method."""
    parts = item.qname.split(".")
    return {parts[-1], *(parts[:-1][-1:])}
