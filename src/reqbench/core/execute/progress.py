"""The run's progress bar: rows done / total, scored, invalid, pending, rate and ETA.

Shown only on an interactive terminal and without ``--quiet``; otherwise every call is a no-op, so logs
and captured output never fill with control sequences (and rich's progress module is never imported).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress


def progress_enabled(console: Console, quiet: bool) -> bool:
    return console.is_terminal and not quiet


def _bar(total: int, console: Console | None) -> tuple[Progress, Any]:
    """The progress bar and its task."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text("-- rows/s" if speed is None else f"{speed:.2f} rows/s")

    progress = Progress(
        TextColumn("[bold]run[/bold]"), BarColumn(), MofNCompleteColumn(),
        TextColumn("[green]{task.fields[scored]} scored[/green] · "
                   "[red]{task.fields[invalid]} invalid[/red] · "
                   "[yellow]{task.fields[pending]} pending[/yellow]"),
        RateColumn(), TimeRemainingColumn(), console=console, transient=False)
    return progress, progress.add_task("run", total=total, scored=0, invalid=0, pending=0)


class RunProgress:
    """Counts rows as they end (scored, invalid after the last attempt, or pending for `--resume`)."""

    def __init__(self, total: int, *, enabled: bool, console: Console | None = None) -> None:
        self.enabled = enabled
        self.counts = {"scored": 0, "invalid": 0, "pending": 0}
        self._progress: Progress | None = None
        if enabled:
            self._progress, self._task = _bar(total, console)

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()

    def row_ended(self, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        if self._progress is not None:
            self._progress.update(self._task, advance=1, scored=self.counts["scored"],
                                  invalid=self.counts["invalid"], pending=self.counts["pending"])
