"""tasklet: a tiny in-memory to-do list library."""

from tasklet.model import Task
from tasklet.tasklist import TaskList

__all__ = ["Task", "TaskList"]
