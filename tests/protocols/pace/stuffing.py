"""No-op candidates that carry a case's vocabulary where it never runs: the reference patch's statements
wrapped, inside the base's existing Python functions, in a guard or construct that keeps them dead while
the file still parses; put into a chain of functions nothing reachable calls; or written into
documentation and configuration files. Patches are made on copies of
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

_PY_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s.*\)\s*(?:->.*)?:\s*$")


def _statements(scorer: Scorer) -> list[str]:
    """The reference's added Python lines that are whole statements on their own, exits turned into
    expressions (code after an exit is dead by an older rule)."""
    out = []
    for raw in scorer.case.reference_patch.splitlines():
        if not raw.startswith("+") or raw.startswith("+++"):
            continue
        line = re.sub(r"^(return|raise)\s+", "", raw[1:].strip())
        if not line or line.startswith(("import ", "from ", "#", '"', "'", "@", "def ", "class ")):
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
    """Every existing function of every Python file the reference touches starts with `wrapper` holding
    the reference's statements; every stuffed file still parses."""
    files = [raw[6:] for raw in scorer.case.reference_patch.splitlines()
             if raw.startswith("+++ b/") and raw.endswith(".py")]
    body = _statements(scorer)
    prologue, guard = PYTHON_WRAPPERS[wrapper]
    a, b = _copies(scorer, scratch, f"wrap-{wrapper}")
    for rel in files:
        target = b / rel
        if not target.is_file():
            continue
        out = []
        for line in target.read_text().splitlines():
            out.append(line)
            match = _PY_DEF.match(line)
            if match:
                indent = match.group(1) + "    "
                deeper = indent + " " * (4 + len(guard[-1]) - len(guard[-1].lstrip()))
                out += [indent + g for g in guard] + [deeper + s for s in body]
        text = prologue + "\n".join(out) + "\n"
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
    touches, and in a file it does not touch an import of one of them and a chain ``_h3 -> _h2 -> _h1 ->
_stuffed`` (far enough from the
    point's seeds that the last link is an inventory edge); `entry` is a top-level guard that calls ``_h3``
    (none by default)."""
    ref = scorer.case.reference_patch
    files = [raw[6:] for raw in ref.splitlines() if raw.startswith("+++ b/") and raw.endswith(".py")]
    body = "\n".join("    " + s for s in _statements(scorer))
    a, b = _copies(scorer, scratch, f"chain-{len(entry)}")
    for rel in files:
        target = b / rel
        if target.is_file():
            target.write_text(target.read_text() + f"\n\ndef _stuffed():\n{body}\n")
    untouched = next(p for p in sorted(b.rglob("*.py")) if p.relative_to(b).as_posix() not in files
                     and "test" not in p.name and p.name != "__init__.py")
    source = next(f for f in files if not f.endswith("__init__.py"))[:-3].replace("/", ".")
    chain = (f"\n\nfrom {source} import _stuffed\n\n\ndef _h3():\n    _h2()\n\n\ndef _h2():\n    _h1()\n\n\n"
             "def _h1():\n    _stuffed()\n")
    untouched.write_text(untouched.read_text() + chain + (f"\n\n{entry}\n    _h3()\n" if entry else ""))
    return diff_trees(a, b)
