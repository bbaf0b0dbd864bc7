"""History truncation for long sessions (SWE-Journey B.1).

A conversation is a list of (speaker, text) entries. When it grows past the high watermark, it is cut
down to the low watermark: every *user* turn is kept (the requirements live there), and of the rest only
the most recent entries that still fit; each dropped run of entries is replaced by one marker line, so a
reader knows something was elided. `force_low` cuts to the low watermark regardless (the one retry after
a context overflow). Sizes are in characters, a provider-independent proxy for tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

Entry = tuple[str, str]
ELIDED = "[... earlier context omitted ...]"


@dataclass(frozen=True)
class Watermarks:
    high: int = 120_000
    """Start truncating once the history exceeds this many characters."""
    low: int = 60_000
    """Truncate down to (at most about) this many characters."""


def size(entries: list[Entry]) -> int:
    return sum(len(text) + len(speaker) + 2 for speaker, text in entries)


def truncate(entries: list[Entry], marks: Watermarks, *, user: str = "user",
             force_low: bool = False) -> list[Entry]:
    """Entries to show; unchanged while under the high watermark (unless `force_low`)."""
    if not force_low and size(entries) <= marks.high:
        return list(entries)
    keep = [speaker == user for speaker, _ in entries]
    budget = marks.low - size([e for e, k in zip(entries, keep, strict=True) if k])
    for i in range(len(entries) - 1, -1, -1):
        if keep[i]:
            continue
        cost = size([entries[i]])
        if cost > budget:
            break
        keep[i] = True
        budget -= cost
    out: list[Entry] = []
    for entry, kept in zip(entries, keep, strict=True):
        if kept:
            out.append(entry)
        elif not out or out[-1] != ("note", ELIDED):
            out.append(("note", ELIDED))
    return out
