"""A tiny protocol for the executor, store and CLI tests, shipped as the third-party package
``reqbench-toy`` (installed by ``make test``): reqbench finds it through the ``reqbench.protocols``
entry point, with no edit to core, cli or report.

A toy suite is a directory with ``toy.json``: ``{"sleep": seconds, "conditions": [...],
"tasks": [{"id": ..., "value": int, "behaviour": BEHAVIOUR}]}`` where BEHAVIOUR is one of "ok", "crash",
"bad-result", "pending", "input-error", "flaky-N".
Every attempt writes a marker file into ``<suite>.markers`` beside the suite (``run`` or ``reeval``), so tests can count
exactly which rows ran how often, across processes.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core import views
from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.hashing import sha256_text
from reqbench.protocols.base import (
    Metric,
    Outcomes,
    RowContext,
    Suite,
    SuiteProtocol,
    Summary,
    SummaryTable,
    bar_from_table,
)

if TYPE_CHECKING:
    from reqbench.core.protocol_study import ProtocolStudy


def write_suite(path: Path, tasks: list[dict[str, Any]], *, sleep: float = 0.0,
                conditions: tuple[str, ...] = ("A", "B")) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "toy.json").write_text(json.dumps({"sleep": sleep, "conditions": list(conditions),
                                                "tasks": tasks}))
    return path


def markers(suite: Path, row: Row, kind: str = "run") -> int:
    return len(list(marker_dir(suite).glob(f"{sha256_text(row.key)[:16]}.{kind}.*")))


def marker_dir(suite: Path) -> Path:
    """Where attempts leave their markers: beside the suite, never inside it (a run's suite is read-only
    content, and a resume checks it did not change)."""
    return Path(suite).parent / f"{Path(suite).name}.markers"


def _read(path: Path) -> dict[str, Any]:
    return json.loads((Path(path) / "toy.json").read_text())  # type: ignore[no-any-return]


class ToyProtocol(SuiteProtocol):
    name = "toy"

    def detect(self, path: Path) -> bool:
        return (Path(path) / "toy.json").is_file()

    def validate(self, path: Path) -> list[str]:
        problems = []
        for i, task in enumerate(_read(path)["tasks"]):
            if "id" not in task:
                problems.append(f"toy.json: task #{i}: every task needs an id")
            if not isinstance(task.get("value", 0), int):
                problems.append(f"toy.json: task '{task.get('id', i)}': value must be an integer")
        return problems

    def load(self, path: Path) -> ToySuite:
        return ToySuite(self, Path(path))

    def row_view(self, record: views.AttemptRecord) -> views.RowView:
        """A row page part drawn by reqbench's viewer from data alone (no HTML here)."""
        return views.RowView((views.Heading("toy value"),
                              views.Facts((("value", getattr(record.result, "value", None)), ("task", record.row.task_id)))))

    def run_view(self, outcomes: Outcomes) -> tuple[views.Block, ...]:
        return (views.Heading("toy rows", level=2),
                views.TableBlock(("row", "value"), tuple((views.RowLink(row.task_id, row.key), getattr(o.result, "value", None))
                                                    for row, o in outcomes)))

    def study(self) -> ProtocolStudy:
        """Its paired value and study table (`reqbench_toy.study`), through reqbench's study hook."""
        from reqbench_toy.study import STUDY

        return STUDY

    def demo_runs(self) -> list[tuple[Path, RunOptions]]:
        import os
        demo = os.environ.get("TOY_DEMO_SUITE")
        return [(Path(demo), RunOptions(agent="reference"))] if demo else []


class ToySuite(Suite):
    """A loaded toy suite; counts the rows running at once (`max_active`) and when each ran (`spans`)."""

    def __init__(self, protocol: ToyProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path
        self.spec = _read(path)
        self._lock = threading.Lock()
        self.active = 0
        self.max_active = 0
        self.spans: list[tuple[Row, float, float]] = []

    def plan(self, options: RunOptions) -> list[Row]:
        conditions = options.conditions or tuple(self.spec["conditions"])
        return [Row(t["id"], c, options.agent, r) for r in range(options.repeats) for t in self.spec["tasks"]
                for c in conditions]

    def _mark(self, row: Row, kind: str) -> None:
        marker_dir(self.path).mkdir(exist_ok=True)
        (marker_dir(self.path) / f"{sha256_text(row.key)[:16]}.{kind}.{uuid.uuid4().hex}").write_text(row.key)

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        assert ctx.work_dir.is_dir()
        self._mark(row, "run")
        task = next(t for t in self.spec["tasks"] if t["id"] == row.task_id)
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        start = time.monotonic()
        try:
            time.sleep(self.spec["sleep"])
        finally:
            with self._lock:
                self.active -= 1
                self.spans.append((row, start, time.monotonic()))
        behaviour = task.get("behaviour", "ok")
        value = task.get("value", 0) * (1 if row.condition == "A" else 2) + row.repeat
        patch = f"--- a/{row.task_id}\n+++ b/{row.task_id}\n+{value}\n".encode()
        if behaviour == "crash":
            raise RuntimeError(f"toy bug in {row.task_id}")
        if behaviour == "bad-result":
            return RowOutcome(RowStatus.SCORED, result={"value": {1, 2}})  # a set is not JSON
        if behaviour == "input-error":
            raise InputError("unknown agent for the toy protocol", item=ctx.options.agent)
        if behaviour.startswith("flaky-") and markers(self.path, row) <= int(behaviour.split("-")[1]):
            return RowOutcome(RowStatus.INVALID, detail="provider rate limit", reason="provider_rate_limit")
        if behaviour == "pending":
            return RowOutcome(RowStatus.PENDING, result={"checks": {"build": "HARNESS_ERROR"}},
                              detail="check could not run", artifacts={"patch": patch})
        return RowOutcome(RowStatus.SCORED, result={"value": value, "scores": {"value": value},
                                                    "checks": {"build": {"status": "PASS", "exit": 0}}},
                          artifacts={"patch": patch, "transcript": f"ran {row.key}".encode()})

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        self._mark(row, "reeval")
        patch = previous.artifacts["patch"].decode()
        value = int(patch.rsplit("+", 1)[1])
        return RowOutcome(RowStatus.SCORED, result={"value": value, "reevaluated": True,
                                                    "checks": {"build": "PASS"}},
                          artifacts={"patch": previous.artifacts["patch"]})

    def summarize(self, outcomes: Outcomes) -> Summary:
        by_condition: dict[str, list[int]] = {}
        for row, outcome in outcomes:
            if outcome.status == RowStatus.SCORED:
                by_condition.setdefault(row.condition, []).append(outcome.result.value)
        scored = sum(len(v) for v in by_condition.values())
        table = SummaryTable("by condition", {c: {"rows": len(v), "mean value": Metric(sum(v) / len(v), (min(v), max(v)))}
                                              for c, v in sorted(by_condition.items())})
        plot = bar_from_table(table, "mean value", title="mean value")
        return Summary(overview={"scored rows": scored}, tables=[table] if table.rows else [],
                       headline={"scored rows": scored}, plots=[plot] if plot else [],
                       data={"scored rows": scored, "by condition": {
                           label: {c: v.to_json() if isinstance(v, Metric) else v for c, v in cells.items()}
                           for label, cells in table.rows.items()}})


PROTOCOL = ToyProtocol()
