"""Messages and histories: the ordered conversation an agent is shown.

A `History` keeps message order as given (never numeric id order, ReqMemBench FORMAT.md §0), refuses
duplicate ids, and has a content fingerprint so a run can prove which history an agent saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json


@dataclass(frozen=True)
class Message:
    """One message of a project conversation."""

    message_id: int | str
    speaker: str
    text: str
    created_ts: str | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "speaker": self.speaker, "text": self.text,
                "created_ts": self.created_ts}


class History:
    """An ordered sequence of messages with unique ids."""

    def __init__(self, messages: Iterable[Message], *, source: str = "history") -> None:
        self._messages = list(messages)
        seen: set[str] = set()
        for m in self._messages:
            key = str(m.message_id)
            if key in seen:
                raise InputError(f"duplicate message id {m.message_id!r}", file=source)
            seen.add(key)
        self._index = {str(m.message_id): i for i, m in enumerate(self._messages)}

    def __iter__(self) -> Iterator[Message]:
        return iter(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def __getitem__(self, i: int) -> Message:
        return self._messages[i]

    def position(self, message_id: int | str) -> int:
        """0-based position P(m) of a message in this history."""
        try:
            return self._index[str(message_id)]
        except KeyError:
            raise InputError(f"unknown message id {message_id!r}") from None

    def __contains__(self, message_id: object) -> bool:
        return str(message_id) in self._index

    def ids(self) -> list[int | str]:
        return [m.message_id for m in self._messages]

    def subset(self, message_ids: Iterable[int | str]) -> History:
        """The messages with the given ids, in this history's order (order-preserving restriction)."""
        wanted = {str(i) for i in message_ids}
        return History([m for m in self._messages if str(m.message_id) in wanted])

    def prefix(self, end_exclusive: int) -> History:
        return History(self._messages[:end_exclusive])

    def fingerprint(self) -> str:
        """sha256 of the canonical JSON of the message dicts, in order."""
        return sha256_json([m.to_dict() for m in self._messages])
