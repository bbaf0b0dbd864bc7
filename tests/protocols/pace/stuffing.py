"""No-op candidates that carry a case's vocabulary where it never runs: the reference patch's statements
wrapped, inside the base's existing functions, in a guard or construct that keeps them dead while the
file still parses; or written into documentation and configuration files. Patches are made on copies of
the base in a scratch folder (never beside the bundled suite)."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from reqbench.core.workspace import diff_trees
from reqbench.protocols.pace.score import Scorer

PYTHON_WRAPPERS = {
    "name-never": ("", ["if __name__ == '<never>':"]),
    "type-checking": ("import typing\n", ["if typing.TYPE_CHECKING:"]),
    "old-python": ("import sys\n", ["if sys.version_info < (2,):"]),
    "false-and": ("", ["if False and __name__:"]),
    "not-true": ("", ["if not True:"]),
    "literals": ("", ["if 'a' == 'b':"]),
    "while-0": ("", ["while 0:"]),
    "else-of-true": ("", ["if 1:", "    pass", "else:"]),
    "empty-loop": ("", ["for _ in ():"]),
    "nested-def": ("", ["def _never_called():"]),
    "class-never": ("", ["class _Never:", "    def method(self):"]),
}
"""Wrapper name -> (module prologue, guard lines; the statements go one level below the last)."""

JS_WRAPPERS = {
    "if-0": ["if (0) {"],
    "false-and": ["if (false && this) {"],
    "typeof-never": ["if (typeof this === 'never') {"],
    "not-true": ["while (!true) {"],
    "nested-function": ["function neverCalled() {"],
    "arrow": ["const neverCalled = () => {"],
}

_PY_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s.*\)\s*(?:->.*)?:\s*$")
_JS_FN = re.compile(r"^(\s*)(?!(?:if|for|while|switch|catch|return)\b)(?:async\s+)?(?:function\s+)?\w+\s*\([^()]*\)\s*\{\s*$")


def _statements(scorer: Scorer, javascript: bool) -> list[str]:
    """The reference's added lines that are whole statements on their own, exits turned into expressions
    (code after an exit is dead by an older rule)."""
    ref = scorer.case.reference_patch
    out = []
    for raw in ref.splitlines():
        if not raw.startswith("+") or raw.startswith("+++"):
            continue
        line = re.sub(r"^(return|raise|throw)\s+", "", raw[1:].strip())
        if not line or line.startswith(("import ", "from ", "export ", "#", "//", '"', "'", "@", "def ", "class ")):
            continue
        if javascript:
            line = re.sub(r"^(?:const|let|var)\s+", "", line)
            if line.endswith(";") and not line.startswith(("]", ")", "super(", "...")) and line not in out and line.count("(") == line.count(")") and "{" not in line and "}" not in line:
                out.append(line)
            continue
        try:
            ast.parse(line)
        except SyntaxError:
            continue
        out.append(line)
    return out


def _copies(scorer: Scorer, scratch: Path, name: str) -> tuple[Path, Path]:
    a, b = scratch / f"{name}-a", scratch / f"{name}-b"
    for d in (a, b):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(scorer.base, d)
    return a, b


def wrapped_in_functions(scorer: Scorer, wrapper: str, scratch: Path) -> str:
    """Every existing function of every file the reference touches starts with `wrapper` holding the
    reference's statements; every stuffed Python file still parses."""
    ref = scorer.case.reference_patch
    files = [raw[6:] for raw in ref.splitlines() if raw.startswith("+++ b/")]
    javascript = all(f.endswith(".js") for f in files if f.endswith((".py", ".js")))
    body = _statements(scorer, javascript)
    a, b = _copies(scorer, scratch, f"wrap-{wrapper}")
    for rel in files:
        target = b / rel
        if not target.is_file() or not rel.endswith(".js" if javascript else ".py"):
            continue
        prologue, guard = ("", JS_WRAPPERS[wrapper]) if javascript else PYTHON_WRAPPERS[wrapper]
        out = []
        for line in target.read_text().splitlines():
            out.append(line)
            match = (_JS_FN if javascript else _PY_DEF).match(line)
            if match:
                indent = match.group(1) + ("  " if javascript else "    ")
                out += [indent + g for g in guard]
                last = guard[-1]
                deeper = indent + " " * ((2 if javascript else 4) + len(last) - len(last.lstrip()))
                out += [deeper + s for s in body]
                if javascript:
                    out.append(indent + ("};" if guard[0].startswith("const") else "}"))
        text = prologue + "\n".join(out) + "\n"
        if not javascript:
            ast.parse(text)  # the stuffing keeps the module importable
        target.write_text(text)
    return diff_trees(a, b)


def vocabulary_in_docs_and_config(scorer: Scorer, scratch: Path) -> str:
    """The reference's added lines and the PRD written into ``NOTES.md``, ``docs/``, ``CHANGES`` and a new
    ``.toml`` file binding each of the reference's names (``name = dotted.name``)."""
    ref = scorer.case.reference_patch
    added = "\n".join(raw[1:] for raw in ref.splitlines() if raw.startswith("+") and not raw.startswith("+++"))
    names = sorted(set(re.findall(r"[A-Za-z_][\w.]*", added)))
    a, b = _copies(scorer, scratch, "docs")
    (b / "docs").mkdir(exist_ok=True)
    for rel in ("NOTES.md", "docs/design.md", "CHANGES"):
        (b / rel).write_text(added + "\n\n" + scorer.case.prd)
    (b / "vocabulary.toml").write_text("\n".join(f'{n.split(".")[-1]} = "{n}"' for n in names) + "\n")
    return diff_trees(a, b)


def chained_functions(scorer: Scorer, scratch: Path, entry: str = "") -> str:
    """A never-called ``_stuffed`` holding the reference's statements in every Python file the reference
    touches, and in a file it does not touch a chain ``_h3 -> _h2 -> _h1 -> _stuffed`` (far enough from the
    point's seeds that the last link is an inventory edge); `entry` is a top-level guard that calls ``_h3``
    (none by default)."""
    ref = scorer.case.reference_patch
    files = [raw[6:] for raw in ref.splitlines() if raw.startswith("+++ b/") and raw.endswith(".py")]
    body = "\n".join("    " + s for s in _statements(scorer, False))
    a, b = _copies(scorer, scratch, f"chain-{len(entry)}")
    for rel in files:
        target = b / rel
        if target.is_file():
            target.write_text(target.read_text() + f"\n\ndef _stuffed():\n{body}\n")
    untouched = next(p for p in sorted(b.rglob("*.py")) if p.relative_to(b).as_posix() not in files
                     and "test" not in p.name and p.name != "__init__.py")
    chain = "\n\ndef _h3():\n    _h2()\n\n\ndef _h2():\n    _h1()\n\n\ndef _h1():\n    _stuffed()\n"
    untouched.write_text(untouched.read_text() + chain + (f"\n\n{entry}\n    _h3()\n" if entry else ""))
    return diff_trees(a, b)
