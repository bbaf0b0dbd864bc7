"""The Task record."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Task:
    """One to-do item."""

    id: int
    title: str
    done: bool = False

    def complete(self) -> None:
        self.done = True
