"""The one way reqbench suggests a name for a typo: ``--agent referense`` -> "did you mean 'reference'?".

Every "unknown NAME" error (agents, judges, protocols, conditions, personas, commands' suite arguments)
appends `did_you_mean(word, known)`, which finds the closest known names with `difflib` (the ratio of
matching characters, at least `CUTOFF`), so the user fixes the typo without reading a list.
"""

from __future__ import annotations

from collections.abc import Iterable

CUTOFF = 0.6
"""`difflib.get_close_matches`'s similarity floor: 'referense' matches 'reference', 'xyz' nothing."""


def close_matches(word: str, known: Iterable[str], n: int = 2) -> list[str]:
    """Up to `n` names of `known` closest to `word` (case-insensitive), best first."""
    import difflib  # only when a name is unknown: a run that names everything right never loads it

    names = list(dict.fromkeys(known))
    lowered = {name.lower(): name for name in names}
    return [lowered[m] for m in difflib.get_close_matches(word.lower(), list(lowered), n=n, cutoff=CUTOFF)]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` (or ``'x' or 'y'``) when a known name is close to `word`, else ``""``."""
    found = close_matches(word, known)
    if not found:
        return ""
    return " (did you mean " + " or ".join(repr(f) for f in found) + "?)"
