"""History truncation for long sessions (SWE-Journey B.1).

A conversation is a sequence of entries, some of which are *user turns* (the requirements live there).
Once it grows past the high watermark it is cut down to the low watermark: every user turn is kept, and
of the rest only the most recent entries that still fit; each dropped run of entries becomes one marker,
so a reader knows something was elided. `force_low` cuts to the low watermark regardless -- the one
retry after a context overflow. Sizes are characters, a provider-independent proxy for tokens.

`truncate` works on (speaker, text) entries (the llm simulator's view of the conversation);
`truncate_chat` on chat-completion messages (an assistant session that exposes its ``messages``), keeping
the system message and the messages that carried user turns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Entry = tuple[str, str]
ELIDED = "[... earlier context omitted ...]"


@dataclass(frozen=True)
class Watermarks:
    high: int = 120_000
    """Start truncating once the history exceeds this many characters."""
    low: int = 60_000
    """Truncate down to (at most about) this many characters."""


def keep_mask(sizes: Sequence[int], pinned: Sequence[bool], marks: Watermarks, force_low: bool) -> list[bool]:
    """Which entries survive: all of them under the high watermark; else pinned ones plus the most recent
    others that fit in the low watermark."""
    if not force_low and sum(sizes) <= marks.high:
        return [True] * len(sizes)
    keep = list(pinned)
    budget = marks.low - sum(s for s, p in zip(sizes, pinned, strict=True) if p)
    for i in range(len(sizes) - 1, -1, -1):
        if keep[i]:
            continue
        if sizes[i] > budget:
            break
        keep[i] = True
        budget -= sizes[i]
    return keep


def truncate(entries: list[Entry], marks: Watermarks, *, user: str = "user",
             force_low: bool = False) -> list[Entry]:
    """Entries to show; unchanged while under the high watermark (unless `force_low`)."""
    keep = keep_mask([len(t) + len(s) + 2 for s, t in entries], [s == user for s, _ in entries], marks,
                     force_low)
    out: list[Entry] = []
    for entry, kept in zip(entries, keep, strict=True):
        if kept:
            out.append(entry)
        elif not out or out[-1] != ("note", ELIDED):
            out.append(("note", ELIDED))
    return out


def truncate_chat(messages: list[dict[str, Any]], user_turns: set[str], marks: Watermarks, *,
                  force_low: bool = False) -> list[dict[str, Any]]:
    """Chat messages to keep: the first (system) message, every message whose content is one of
    `user_turns`, and recent context; dropped runs become one user-role marker message."""
    pinned = [i == 0 or (m.get("role") == "user" and m.get("content") in user_turns)
              for i, m in enumerate(messages)]
    keep = keep_mask([len(str(m.get("content") or "")) + 16 for m in messages], pinned, marks, force_low)
    out: list[dict[str, Any]] = []
    marker = {"role": "user", "content": ELIDED}
    for msg, kept in zip(messages, keep, strict=True):
        if kept:
            out.append(msg)
        elif not out or out[-1] != marker:
            out.append(dict(marker))
    return out
