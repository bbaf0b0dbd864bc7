"""A validation problem: one sentence naming file, project, requirement, event (or target) and rule code."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from reqbench.protocols.takeover.annotation.project import Event, Project


@dataclass(frozen=True)
class Problem:
    """One rule violation; `str()` is the one-sentence message the CLI prints."""

    code: str
    text: str
    file: str = ""
    project: str = ""
    requirement: str | None = None
    event: str | None = None
    target: str | None = None

    def __str__(self) -> str:
        where = [f"project {self.project}"] if self.project else []
        if self.requirement:
            where.append(f"requirement {self.requirement}")
        if self.event:
            where.append(f"event {self.event}")
        if self.target:
            where.append(f"target {self.target}")
        head = f"{self.file}: " if self.file else ""
        return f"{head}{', '.join(where)}: {self.text} (rule {self.code})"


def event_problem(code: str, ev: Event, text: str) -> Problem:
    return Problem(code, text, requirement=ev.requirement_id, event=ev.event_id)


def all_events(project: Project) -> Iterator[Event]:
    for req in project.requirements:
        yield from req.events
