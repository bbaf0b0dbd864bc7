"""Live code: which lines of a candidate's source files can run, and the code text each holds.

PACE-Bench's L1 gathers "the connections needed to make the behavior reachable" (§3.1) and grants no
credit from identifier presence alone; code that can never run -- a block under a guard no run satisfies,
statements after an unconditional exit, a nested function nothing calls, a literal-only statement, a
comment -- is text, not behaviour. `credited_lines(path, text)` maps each line that can run to its code
text (comments and the inner lines of strings spanning lines removed), deciding deadness on the whole
file's syntax tree (`python` with `ast`, `javascript` with the L1 tree-sitter grammars; the constant
folding of Python guards is `constant_conditions`). It returns None for a file that does not parse (it cannot be
imported, so none of it runs: the L1 localiser credits no line of it) and for a non-source file.
"""

from __future__ import annotations

import hashlib

from reqbench.protocols.pace.l1.languages.javascript import SUFFIXES as JS_SUFFIXES
from reqbench.protocols.pace.l1.liveness import javascript, python

__all__ = ["credited_lines"]

_MEMO: dict[tuple[str, str], dict[int, str] | None] = {}
_MEMO_SIZE = 256
"""Per process: a base file is the same text in every candidate tree, parsed once."""


def credited_lines(path: str, text: str) -> dict[int, str] | None:
    """Line number -> code text of every line of the source file `path` that can run (module docstring).
    Callers get a fresh dict."""
    key = (path, hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest())
    if key not in _MEMO:
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = _credited(path, text)
    found = _MEMO[key]
    return None if found is None else dict(found)


def _credited(path: str, text: str) -> dict[int, str] | None:
    if path.endswith((".py", ".pyi")):
        return python.credited_lines(path, text)
    if path.endswith(JS_SUFFIXES):
        return javascript.credited_lines(path, text)
    return None
