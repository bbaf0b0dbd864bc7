"""A synchronous event bus. Handlers subscribe by event name; publish calls them in order."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

Handler = Callable[[str, dict[str, Any]], None]


class EventBus:
    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = defaultdict(list)
        self.published: list[tuple[str, dict[str, Any]]] = []

    def subscribe(self, event: str, handler: Handler) -> None:
        self._handlers[event].append(handler)

    def publish(self, event: str, payload: dict[str, Any]) -> None:
        self.published.append((event, payload))
        for handler in self._handlers.get(event, []):
            handler(event, payload)

    def handlers(self, event: str) -> list[Handler]:
        return list(self._handlers.get(event, []))
