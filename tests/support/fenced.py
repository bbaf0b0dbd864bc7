"""Structural reading of recorded model requests: which text is fenced, which is in the harness's voice.

`regions(text, fence_id)` splits one prompt into the lines outside any fence and the fenced blocks, by the
exact marker lines of `reqbench.core.llm.fence`, and fails on anything a careful reader could take for a
broken fence: a line-breaking character other than LF anywhere in the prompt (CR, VT, FF, NUL, U+0085,
U+2028/2029, U+001C-U+001E: `str.splitlines` would see more lines than the marker parser), a label that
is not a fixed phrase, the fence id inside fenced content, a stray or unmatched marker carrying the id,
an unclosed block. `assert_only_fenced(bodies, tokens)` applies it to every system and user message of
every recorded chat request and asserts that no token occurs outside a fenced block (any letter case).

Assistant messages are the model's own earlier replies, sent back verbatim; they are not the harness's
voice, so they are checked only for being exactly what the model answered (`replies`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

_DECLARED = re.compile(r"Only markers with exactly this id \(([0-9a-f]{32})\)")
_LABEL = re.compile(r"[A-Za-z][A-Za-z ,()]{0,79}")
_BREAKS = re.compile("[\r\x0b\x0c\x00\x1c-\x1e\x85\u2028\u2029]")


def declared_id(body: dict[str, Any]) -> str | None:
    """The fence id a request declares (the first declaration in its messages), if any."""
    for m in body.get("messages", []):
        found = _DECLARED.search(str(m.get("content") or ""))
        if found:
            return found.group(1)
    return None


def regions(text: str, fence_id: str | None) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """(lines outside every fence, [(label, content lines)]) of one prompt; AssertionError if malformed."""
    bad = _BREAKS.search(text)
    assert bad is None, f"line-breaking character {bad.group()!r} in a prompt at {bad.start()}"
    if fence_id is None:
        return text.split("\n"), []
    fid = fence_id.lower()
    begin = re.compile(rf"<<<BEGIN UNTRUSTED DATA {fence_id}: (.*)>>>")
    outside: list[str] = []
    blocks: list[tuple[str, list[str]]] = []
    label: str | None = None
    body: list[str] = []
    for line in text.split("\n"):
        if label is None:
            m = begin.fullmatch(line)
            if m:
                label, body = m.group(1), []
                assert _LABEL.fullmatch(label), f"marker label {label!r} is not a fixed phrase"
                continue
            assert not (line.startswith("<<<") and fid in line.lower()), f"stray marker line {line!r}"
            outside.append(line)
        elif line == f"<<<END UNTRUSTED DATA {fence_id}: {label}>>>":
            blocks.append((label, body))
            label = None
        else:
            assert fid not in line.lower(), f"the fence id occurs inside block {label!r}: {line!r}"
            body.append(line)
    assert label is None, f"block {label!r} is never closed"
    return outside, blocks


def unfenced(body: dict[str, Any]) -> str:
    """All text of a request's system and user messages that stands outside every fence."""
    fid = declared_id(body)
    return "\n".join(line for m in body.get("messages", []) if m.get("role") != "assistant"
                     for line in regions(str(m.get("content") or ""), fid)[0])


def fenced(body: dict[str, Any]) -> str:
    """All fenced content of a request's system and user messages."""
    fid = declared_id(body)
    return "\n".join(line for m in body.get("messages", []) if m.get("role") != "assistant"
                     for _, lines in regions(str(m.get("content") or ""), fid)[1] for line in lines)


def assert_only_fenced(bodies: Sequence[dict[str, Any]], tokens: Iterable[str],
                       replies: Sequence[str] | None = None) -> None:
    """No token outside a fence in any system or user message of `bodies`; assistant messages, if
    `replies` is given, must each be one of the model's replies, unchanged."""
    tokens = list(tokens)
    assert bodies, "no request was recorded"
    for i, body in enumerate(bodies):
        outside = unfenced(body).lower()
        leaked = [t for t in tokens if t.lower() in outside]
        assert not leaked, f"request {i}: {leaked} outside the fence:\n{unfenced(body)}"
        if replies is not None:
            for m in body.get("messages", []):
                if m.get("role") == "assistant":
                    assert m.get("content") in replies, f"request {i}: an assistant turn was altered"
