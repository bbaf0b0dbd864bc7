"""Run store: atomic attempts, schema versions, content-addressed artifacts, plan, cache, exports."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.hashing import sha256_bytes
from reqbench.core.store import SCHEMA_VERSION, JudgeCall, RunMeta, RunStore, utc_now

ROW = Row("t1", "C1", "reference", 0)


def new_store(tmp_path: Path) -> RunStore:
    meta = RunMeta(suite_path="/suite", protocol="toy", options={"agent": "reference", "seed": 1},
                   created=utc_now(), reqbench_version="0")
    store = RunStore.create(tmp_path / "run", meta)
    store.add_plan([ROW, Row("t2", "C1", "reference", 0)])
    return store


def scored(patch: bytes = b"diff", **result: object) -> RowOutcome:
    return RowOutcome(RowStatus.SCORED, result={"scores": {"f1": 0.5}, "checks": {"build": "PASS"},
                                                **result}, artifacts={"patch": patch})


def test_failure_inside_record_attempt_leaves_no_attempt_and_no_blob(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    # a real SQLite failure in the middle of the transaction (after the attempt row was inserted)
    store._conn.execute("CREATE TRIGGER boom BEFORE INSERT ON scores BEGIN SELECT RAISE(ABORT, 'boom'); END")
    with pytest.raises(sqlite3.IntegrityError, match="boom"):
        store.record_attempt(ROW, scored(b"unique patch bytes"))
    assert store.attempts(ROW) == []
    for table in ("attempts", "attempt_artifacts", "submissions", "check_results", "scores"):
        assert store._conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table
    assert not store.artifacts.exists(sha256_bytes(b"unique patch bytes"))
    store._conn.execute("DROP TRIGGER boom")
    attempt = store.record_attempt(ROW, scored(b"unique patch bytes"))
    assert attempt.attempt_no == 1  # numbering did not skip the failed write


def test_attempt_records_submission_checks_and_scores_together(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    a = store.record_attempt(ROW, scored(b"P1"))
    assert store.scores(ROW, a.attempt_no) == {"f1": 0.5}
    assert store.check_results(ROW, a.attempt_no) == [{"check": "build", "status": "PASS", "detail": {}}]
    sub = store._conn.execute("SELECT patch_sha256 FROM submissions").fetchone()[0]
    assert sub == sha256_bytes(b"P1") == a.artifacts["patch"]


def test_store_from_newer_reqbench_is_refused(tmp_path: Path) -> None:
    new_store(tmp_path).close()
    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(InputError, match="newer than this reqbench supports"):
        RunStore.open(tmp_path / "run")


def test_directory_without_store_is_not_a_run(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a run directory"):
        RunStore.open(tmp_path)


def test_store_uses_wal_and_stamps_schema_version(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_equal_artifacts_are_stored_once_under_their_sha256(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.record_attempt(ROW, scored(b"same bytes"))
    store.record_attempt(Row("t2", "C1", "reference", 0), scored(b"same bytes"))
    sha = sha256_bytes(b"same bytes")
    blobs = [p for p in (tmp_path / "run" / "artifacts").rglob("*") if p.is_file()]
    assert blobs == [tmp_path / "run" / "artifacts" / sha[:2] / sha[2:]]
    assert blobs[0].read_bytes() == b"same bytes"


def test_selected_outcome_is_the_earliest_scored_with_its_artifacts(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.record_attempt(ROW, RowOutcome(RowStatus.INVALID, detail="rate limit"))
    store.record_attempt(ROW, scored(b"first", value=1))
    store.record_attempt(ROW, scored(b"second", value=2))
    selected = store.selected_outcome(ROW)
    assert selected is not None
    assert selected.result.value == 1 and selected.artifacts["patch"] == b"first"
    assert [a.attempt_no for a in store.attempts(ROW)] == [1, 2, 3]


def test_add_plan_is_idempotent_and_keeps_order(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    assert store.add_plan([ROW, Row("t2", "C1", "reference", 0)]) == 0
    assert store.add_plan([Row("t3", "C1", "reference", 0), ROW]) == 1
    assert [r.task_id for r in store.plan()] == ["t1", "t2", "t3"]


def test_rows_to_run_excludes_finished_rows(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.record_attempt(ROW, scored())
    for _ in range(2):
        store.record_attempt(Row("t2", "C1", "reference", 0),
                             RowOutcome(RowStatus.INVALID, reason="provider_rate_limit"))
    assert store.rows_to_run(max_attempts=3) == [Row("t2", "C1", "reference", 0)]
    assert store.rows_to_run(max_attempts=2) == []
    counts = store.counts(max_attempts=3)
    assert counts == {"planned": 2, "scored": 1, "pending": 0, "invalid": 1, "unstarted": 0,
                      "unfinished": 1, "attempts": 3}


def test_cache_keeps_the_first_recorded_value(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    assert store.get_cached("judge", "k") is None
    store.put_cached("judge", "k", {"labels": ["SAME"]})
    store.put_cached("judge", "k", {"labels": ["DIFFERENT"]})
    assert store.get_cached("judge", "k") == {"labels": ["SAME"]}
    assert store.get_cached("model", "k") is None


def test_judge_calls_round_trip(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    call = JudgeCall(request_key="r1", judge_id="exact", contract="rq3", request={"a": 1},
                     response={"labels": [1]}, started=utc_now(), finished=utc_now())
    store.record_judge_call(call)
    assert store.judge_calls("r1") == [call]
    assert store.judge_calls("other") == []


def test_create_in_unwritable_place_leaves_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    with pytest.raises(InputError, match="cannot create the run directory"):
        RunStore.create(blocker / "deeper" / "run", meta)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_create_refuses_an_existing_directory(tmp_path: Path) -> None:
    new_store(tmp_path).close()
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    with pytest.raises(InputError, match="already exists"):
        RunStore.create(tmp_path / "run", meta)


def test_export_jsonl_has_one_line_per_planned_row(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.record_attempt(ROW, RowOutcome(RowStatus.INVALID, detail="rate limit"))
    store.record_attempt(ROW, scored(b"p", value=7))
    assert store.export_jsonl(tmp_path / "rows.jsonl") == 2
    lines = [json.loads(x) for x in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [(x["task_id"], x["status"], x["attempt_no"], x["attempts"]) for x in lines] == [
        ("t1", "scored", 2, 2), ("t2", "unstarted", None, 0)]
    assert lines[0]["result"]["value"] == 7
    assert lines[0]["artifacts"] == {"patch": sha256_bytes(b"p")}


def test_parquet_export_without_pyarrow_says_how_to_get_it(tmp_path: Path) -> None:
    try:
        import pyarrow  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(InputError, match="install pyarrow for --parquet"):
            new_store(tmp_path).export_parquet(tmp_path / "rows.parquet")
        assert not (tmp_path / "rows.parquet").exists()
    else:
        pytest.skip("pyarrow is installed here; the missing-pyarrow message cannot be observed")


def test_read_only_store_reads_and_refuses_writes(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.record_attempt(ROW, scored())
    store.close()
    with RunStore.open(tmp_path / "run", read_only=True) as reader:
        assert [row for row, _ in reader.outcomes()] == [ROW]
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            reader.record_attempt(ROW, scored(b"other"))
