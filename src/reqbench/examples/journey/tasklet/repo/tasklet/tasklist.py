"""TaskList: an ordered collection of tasks with stable integer ids."""

from __future__ import annotations

from tasklet.model import Task


class TaskList:
    """Tasks in insertion order; ids start at 1 and are never reused."""

    def __init__(self) -> None:
        self._tasks: list[Task] = []
        self._next_id = 1

    def add(self, title: str) -> Task:
        title = title.strip()
        if not title:
            raise ValueError("a task needs a title")
        task = Task(id=self._next_id, title=title)
        self._next_id += 1
        self._tasks.append(task)
        return task

    def get(self, task_id: int) -> Task:
        for task in self._tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)

    def complete(self, task_id: int) -> Task:
        task = self.get(task_id)
        task.complete()
        return task

    def remove(self, task_id: int) -> None:
        self._tasks.remove(self.get(task_id))

    def all(self) -> list[Task]:
        return list(self._tasks)

    def open(self) -> list[Task]:
        return [t for t in self._tasks if not t.done]

    def __len__(self) -> int:
        return len(self._tasks)
