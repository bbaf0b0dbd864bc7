"""A run is one lane of `core.execute.lanes`: its rows keep the order a run's seeded schedule gives them, and a
study's lanes interleave by the same rule (so moving runs onto lanes changed no run's order)."""

from __future__ import annotations

from reqbench.core.execute.lanes import interleaved
from reqbench.core.execute.schedule import schedule
from reqbench.core.execute.types import Row


def test_one_unnamed_lane_runs_its_rows_in_the_run_schedule_order() -> None:
    rows = [Row(f"t{i}", c, "a", r) for i in range(5) for c in ("A", "B") for r in range(3)]
    for barrier in (True, False):
        lanes = interleaved({"": rows}, 20260729, barrier=barrier)
        assert [[item.row for item in batch] for batch in lanes] == schedule(rows, 20260729, barrier=barrier)
        assert all(item.key == item.row.key for batch in lanes for item in batch)


def test_a_named_lane_alone_keeps_the_same_order_as_a_run() -> None:
    rows = [Row(f"t{i}", "A", "a", r) for i in range(7) for r in range(2)]
    named = interleaved({"cfg": rows}, 7, barrier=True)
    assert [[item.row for item in batch] for batch in named] == schedule(rows, 7, barrier=True)
    assert named[0][0].key.startswith("cfg|")
