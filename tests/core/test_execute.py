"""Executor: seeded schedule, barriers between repeats, concurrency cap, retries, bugs, pending rows."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console

from reqbench.core.errors import InputError
from reqbench.core.execute.executor import LocalExecutor, make_executor
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.progress import progress_enabled
from reqbench.core.execute.schedule import RepeatBarrier, schedule
from reqbench.core.execute.types import Row, RowStatus, RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.core.toy_protocol import ToyProtocol, markers, write_suite


def open_store(tmp_path: Path) -> RunStore:
    return RunStore.create(tmp_path / "run", RunMeta(suite_path=str(tmp_path / "suite"), protocol="toy",
                                                     options={}, created=utc_now(), reqbench_version="0"))


def rows(n: int, repeats: int) -> list[Row]:
    return [Row(f"t{i:02d}", "C", "a", r) for r in range(repeats) for i in range(n)]


def test_schedule_is_the_documented_seeded_shuffle_per_repeat() -> None:
    plan = rows(12, 2)
    batches = schedule(reversed(plan), seed=7, barrier=True)  # input order must not matter
    for repeat, batch in enumerate(batches):
        expected = sorted((r for r in plan if r.repeat == repeat), key=lambda r: r.key)
        random.Random(f"7:{repeat}").shuffle(expected)
        assert batch == expected
    assert schedule(plan, seed=7, barrier=True) == batches
    assert schedule(plan, seed=8, barrier=True) != batches
    assert schedule(plan, seed=7, barrier=False) == [batches[0] + batches[1]]  # same order, one batch


def test_schedule_groups_rows_by_repeat_in_ascending_order() -> None:
    batches = schedule(rows(3, 3)[::-1], seed=1, barrier=True)
    assert [{r.repeat for r in b} for b in batches] == [{0}, {1}, {2}]


class BarrierToy(ToyProtocol):
    """The toy protocol with a rule of its own: a barrier between repeats."""

    def repeat_barrier(self, options: RunOptions) -> RepeatBarrier:
        return RepeatBarrier("toy rule", "nothing")


def test_repeat_one_never_starts_before_repeat_zero_finished_under_a_protocols_barrier(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": f"t{i}", "value": i} for i in range(4)], sleep=0.05,
                        conditions=("A",))
    proto = BarrierToy().load(suite)
    with open_store(tmp_path) as store:
        execute_run(store, proto, RunOptions(repeats=2, concurrency=4))
    ends_0 = [end for row, _, end in proto.spans if row.repeat == 0]
    starts_1 = [start for row, start, _ in proto.spans if row.repeat == 1]
    assert len(ends_0) == len(starts_1) == 4
    assert min(starts_1) >= max(ends_0)


def test_without_a_barrier_rows_of_the_next_repeat_fill_free_slots(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": f"t{i}", "value": i} for i in range(2)], sleep=0.3,
                        conditions=("A",))
    proto = ToyProtocol().load(suite)
    with open_store(tmp_path) as store:
        execute_run(store, proto, RunOptions(repeats=3, concurrency=6))
    spans = [(start, end) for _, start, end in proto.spans]
    assert len(spans) == 6
    assert max(sum(s <= t < e for s, e in spans) for t, _ in spans) > 2  # more than one repeat in flight


def test_concurrency_cap_is_never_exceeded(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": f"t{i}", "value": i} for i in range(6)], sleep=0.1,
                        conditions=("A",))
    proto = ToyProtocol().load(suite)
    with open_store(tmp_path) as store:
        counts = execute_run(store, proto, RunOptions(concurrency=2))
    assert counts["scored"] == 6
    assert proto.max_active == 2  # reached (the pool is used) and never exceeded


def test_bug_in_a_row_becomes_one_invalid_attempt_and_the_run_goes_on(tmp_path: Path) -> None:
    """A harness exception is attrition at once (SpecPath §4.3: runner invalidity is never re-run)."""
    suite = write_suite(tmp_path / "suite", [{"id": "bad", "behaviour": "crash"}, {"id": "good", "value": 1}],
                        conditions=("A",))
    with open_store(tmp_path) as store:
        counts = execute_run(store, ToyProtocol().load(suite), RunOptions(), max_attempts=3)
        bad = store.attempts(Row("bad", "A", "reference", 0))
        assert [(a.status, a.reason) for a in bad] == [(RowStatus.INVALID, "harness_exception")]
        assert "RuntimeError: toy bug in bad" in bad[0].detail and "Traceback" in bad[0].detail
        assert store.selected_attempt(Row("good", "A", "reference", 0)).status == RowStatus.SCORED
    assert counts["scored"] == 1 and counts["invalid"] == 1 and counts["unfinished"] == 0


def test_malformed_outcome_is_an_invalid_attempt_not_a_crashed_run(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "b", "behaviour": "bad-result"}, {"id": "g", "value": 1}],
                        conditions=("A",))
    with open_store(tmp_path) as store:
        counts = execute_run(store, ToyProtocol().load(suite), RunOptions(), max_attempts=1)
        (bad,) = store.attempts(Row("b", "A", "reference", 0))
    assert bad.status == RowStatus.INVALID and "not JSON serializable" in bad.detail
    assert counts["scored"] == 1 and counts["invalid"] == 1


def test_provider_limit_retries_stop_at_the_first_scored_attempt(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "f", "value": 5, "behaviour": "flaky-2"}],
                        conditions=("A",))
    row = Row("f", "A", "reference", 0)
    with open_store(tmp_path) as store:
        execute_run(store, ToyProtocol().load(suite), RunOptions())
        assert [a.status for a in store.attempts(row)] == [RowStatus.INVALID, RowStatus.INVALID,
                                                           RowStatus.SCORED]
        assert store.selected_attempt(row).attempt_no == 3
    assert markers(suite, row) == 3


def test_pending_row_is_reevaluated_on_resume_without_rerunning_the_agent(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "p", "value": 4, "behaviour": "pending"}],
                        conditions=("A",))
    row = Row("p", "A", "reference", 0)
    with open_store(tmp_path) as store:
        first = execute_run(store, ToyProtocol().load(suite), RunOptions())
        assert first["pending"] == 1 and first["unfinished"] == 1
        assert markers(suite, row, "reeval") == 0  # not re-evaluated within the same invocation
        second = execute_run(store, ToyProtocol().load(suite), RunOptions())
        selected = store.selected_attempt(row)
    assert second["scored"] == 1 and second["unfinished"] == 0
    assert markers(suite, row, "run") == 1 and markers(suite, row, "reeval") == 1
    assert selected.kind == "reevaluate" and selected.result.stored() == {
        "value": 4, "reevaluated": True, "checks": {"build": "PASS"}}


def test_user_error_in_a_row_stops_the_run_and_keeps_recorded_rows(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "ok", "value": 1},
                                             {"id": "zz", "behaviour": "input-error"}], conditions=("A",))
    with open_store(tmp_path) as store:
        with pytest.raises(InputError, match="unknown agent"):
            execute_run(store, ToyProtocol().load(suite), RunOptions(seed=3))
        # the user error is not an attempt: after fixing the input the row runs normally
        assert store.attempts(Row("zz", "A", "reference", 0)) == []
        recorded = [r for r in store.plan() if store.attempts(r)]
        assert all(store.selected_attempt(r).status == RowStatus.SCORED for r in recorded)


def test_progress_is_off_without_a_terminal_or_with_quiet() -> None:
    assert not progress_enabled(Console(file=io.StringIO()), quiet=False)
    assert not progress_enabled(Console(file=io.StringIO(), force_terminal=True), quiet=True)
    assert progress_enabled(Console(file=io.StringIO(), force_terminal=True), quiet=False)


def test_disabled_progress_writes_nothing(tmp_path: Path) -> None:
    out = io.StringIO()
    suite = write_suite(tmp_path / "suite", [{"id": "t", "value": 1}])
    with open_store(tmp_path) as store:
        execute_run(store, ToyProtocol().load(suite), RunOptions(), show_progress=False,
                    console=Console(file=out))
    assert out.getvalue() == ""


def test_unknown_or_missing_executor_is_a_user_error() -> None:
    with pytest.raises(InputError, match="unknown executor"):
        make_executor("slurm", 1)
    try:
        import ray  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(InputError, match="needs Ray"):
            make_executor("ray", 1)
    with pytest.raises(InputError, match="at least 1"):
        LocalExecutor(0)


def test_two_processes_cannot_execute_the_same_run_at_once(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t", "value": 1}])
    with open_store(tmp_path) as store, store.exclusive():
        with RunStore.open(tmp_path / "run") as other, pytest.raises(InputError, match="another process"):
            execute_run(other, ToyProtocol().load(suite), RunOptions())
        assert store.attempts(Row("t", "A", "reference", 0)) == []


def test_scratch_of_killed_attempts_is_removed_but_protocol_caches_are_kept(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t", "value": 1}])
    with open_store(tmp_path) as store:
        stale = store.run_dir / "work" / "0123456789abcdef-deadbeef"
        cache = store.run_dir / "work" / "protocol-cache"
        (stale / "workspace").mkdir(parents=True)
        cache.mkdir()
        execute_run(store, ToyProtocol().load(suite), RunOptions())
    assert not stale.exists() and cache.is_dir()
