"""The run store: one run directory = ``run.sqlite`` + ``artifacts/`` (DESIGN §6).

Every write is one SQLite transaction, so a crash (even SIGKILL) at any point leaves the store as it was
before or after that write, never in between. An attempt is written only once it is complete, together with
its artifact references, submission, check results and scores; a row that was running when the process
died simply has no attempt and is run again on `--resume`. Model calls go through the file's group-commit
writer (`store.writer`) and are made durable before an attempt is recorded, so a row reported done never
loses one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.execute.reasons import as_reason
from reqbench.core.execute.results import OpenResult, ProtocolResult, read_result, result_model_of
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.filemodes import as_umask_allows
from reqbench.core.store import schema
from reqbench.core.store.artifacts import ArtifactStore
from reqbench.core.store.calls import CallRecords
from reqbench.core.store.connection import utc_now
from reqbench.core.store.models import RunMeta, checks_of, scores_of
from reqbench.core.store.selection import (
    DEFAULT_MAX_ATTEMPTS,
    ORIGINAL,
    Attempt,
    NextStep,
    next_step,
    select_attempt,
)
from reqbench.core.store.writer import flush_writes

__all__ = ["ARTIFACTS_DIR", "DB_NAME", "LOCK_NAME", "SUBMISSION_ARTIFACT", "RunStore", "is_run_dir", "utc_now"]

DB_NAME = "run.sqlite"
ARTIFACTS_DIR = "artifacts"
LOCK_NAME = "run.lock"
_ATTEMPT_COLUMNS = ("row_key", "attempt_no", "status", "kind", "detail", "started", "finished", "reason",
                    "parent_attempt", "grading")
_UNREAD = ProtocolResult()
"""The result of an attempt read without its result (`RunStore._all_attempts`); never stored."""
SUBMISSION_ARTIFACT = "patch"
"""An outcome artifact with this name is the row's frozen submission (also listed in `submissions`)."""


def is_run_dir(path: Path) -> bool:
    return (Path(path) / DB_NAME).is_file()


class RunStore(CallRecords):
    """A run directory opened for reading and writing. Thread-safe (one connection behind a lock).

    The record/replay cache and the judge-call log are inherited from `CallRecords` (`store.calls`)."""

    def __init__(self, run_dir: Path, conn: sqlite3.Connection) -> None:
        super().__init__(conn)
        self.run_dir = Path(run_dir)
        self.db_path = self.run_dir / DB_NAME
        self.artifacts = ArtifactStore(self.run_dir / ARTIFACTS_DIR)
        self._result_model: type[ProtocolResult] | None = None

    @property
    def result_model(self) -> type[ProtocolResult]:
        """The model every stored result is read back through: the run's protocol's ``result_model``
        (`OpenResult` when that protocol declares none or is not installed here)."""
        if self._result_model is None:
            from reqbench.core.execute.suite import load_protocol

            try:
                self._result_model = result_model_of(load_protocol(self.meta.protocol))
            except InputError:
                self._result_model = OpenResult
        return self._result_model

    # ---- lifecycle -------------------------------------------------------------------------------
    @classmethod
    def create(cls, run_dir: Path, meta: RunMeta) -> RunStore:
        """Create a new run directory atomically: it is built beside its final place and renamed, so an
        error (unwritable location, disk full) leaves nothing behind."""
        run_dir = Path(run_dir).absolute()
        if run_dir.exists():
            raise InputError("run directory already exists (use --resume to continue it)",
                             file=str(run_dir))
        created_parent = _first_missing_ancestor(run_dir.parent)
        staging: Path | None = None
        try:
            run_dir.parent.mkdir(parents=True, exist_ok=True)
            staging = tempdirs.make("staging", run_dir.parent, hidden=True)
            as_umask_allows(staging, directory=True)  # a run directory, not scratch
            (staging / ARTIFACTS_DIR).mkdir()
            conn = schema.connect(staging / DB_NAME)
            try:
                schema.initialise(conn)
                conn.execute("INSERT INTO run (id, suite_path, protocol, options_json, created, "
                             "reqbench_version, provenance_json) VALUES (1, ?, ?, ?, ?, ?, ?)",
                             (meta.suite_path, meta.protocol, json.dumps(meta.options, sort_keys=True),
                              meta.created, meta.reqbench_version, json.dumps(meta.provenance, sort_keys=True)))
            finally:
                conn.close()
            os.rename(staging, run_dir)
        except (OSError, sqlite3.Error) as exc:  # unwritable location, disk full (SQLITE_FULL)
            if staging is not None:
                shutil.rmtree(staging, ignore_errors=True)
            if created_parent is not None:
                shutil.rmtree(created_parent, ignore_errors=True)
            raise InputError(f"cannot create the run directory ({getattr(exc, 'strerror', None) or exc})",
                             file=str(run_dir)) from exc
        return cls.open(run_dir)

    @classmethod
    def open(cls, run_dir: Path, *, read_only: bool = False) -> RunStore:
        run_dir = Path(run_dir).absolute()
        db = run_dir / DB_NAME
        if not db.is_file():
            raise InputError("not a run directory (no run.sqlite)", file=str(run_dir))
        conn = schema.connect(db, read_only=read_only)
        try:
            schema.check_version(conn, db)
        except BaseException:
            conn.close()
            raise
        return cls(run_dir, conn)

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Write what this process still has queued for the store (`store.writer`), then close it."""
        try:
            flush_writes(self.db_path, release=True, check=False)
        finally:
            super().close()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the run's lock file (``run.lock``, `fcntl.flock`) while executing rows, so two processes
        never run the same run directory at once. The kernel drops the lock when the process dies (even
        by SIGKILL), so a killed run never blocks its own `--resume`."""
        from reqbench.core.locks import exclusive

        with exclusive(self.run_dir / LOCK_NAME, "the run is being executed by another process; wait for it or "
                       "stop it", owner=self.run_dir):
            yield

    # ---- metadata and plan -----------------------------------------------------------------------
    @property
    def meta(self) -> RunMeta:
        r = self._query("SELECT * FROM run WHERE id = 1")[0]
        return RunMeta(suite_path=r["suite_path"], protocol=r["protocol"],
                       options=json.loads(r["options_json"]), created=r["created"],
                       reqbench_version=r["reqbench_version"], provenance=json.loads(r["provenance_json"]))

    def add_plan(self, rows: Sequence[Row]) -> int:
        """Add the planned rows (idempotent: rows already present are kept as they are).

        Returns how many rows were new. Order indices follow `rows`; rows added later go after the
        existing ones.
        """
        with self._tx() as conn:
            start = conn.execute("SELECT COALESCE(MAX(order_index) + 1, 0) FROM plan").fetchone()[0]
            added = 0
            for row in rows:
                cur = conn.execute(
                    "INSERT OR IGNORE INTO plan (row_key, task_id, condition, agent, repeat, order_index) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (row.key, row.task_id, row.condition, row.agent, row.repeat, start + added))
                added += cur.rowcount
        return added

    def plan(self) -> list[Row]:
        return [_row(r) for r in self._query("SELECT * FROM plan ORDER BY order_index")]

    # ---- attempts --------------------------------------------------------------------------------
    def record_attempt(self, row: Row, outcome: RowOutcome, *, kind: str = "run",
                       started: str | None = None, finished: str | None = None,
                       parent: int | None = None, grading: str = ORIGINAL) -> Attempt:
        """Store one complete attempt of `row` in a single transaction.

        Artifacts are written first (content-addressed, deduplicated); the attempt row, its artifact
        references, the submission (artifact ``patch``), check results and scores are then inserted in
        one transaction. On any failure the transaction is rolled back and blobs written by this call
        are removed, so nothing of the attempt remains.

        Result conventions read here (all optional):
        ``result["checks"]``: ``{name: status}`` or ``{name: {"status": ..., ...}}`` -> `check_results`;
        ``result["scores"]``: ``{metric: number | bool | None}`` -> `scores` (other values are not scores
        and are left to the result JSON). `parent` and `grading` link a re-graded attempt to the one
        whose frozen submission it re-scored (`store.gradings`).
        """
        stored = outcome.result.stored()
        result_json = json.dumps(stored, sort_keys=True, ensure_ascii=False)
        status = RowStatus(outcome.status)
        code = outcome.reason.value if outcome.reason else ""
        finished = finished or utc_now()
        started = started or finished
        flush_writes(self.db_path)  # the row's model calls are durable before it is reported done
        with self._lock:
            refs: dict[str, tuple[str, int]] = {}
            fresh: list[str] = []
            try:
                for name, data in sorted(outcome.artifacts.items()):
                    sha, new = self.artifacts.put(data)
                    refs[name] = (sha, len(data))
                    if new:
                        fresh.append(sha)
                with self._tx() as conn:
                    attempt_no = conn.execute(
                        "SELECT COALESCE(MAX(attempt_no), 0) + 1 FROM attempts WHERE row_key = ?",
                        (row.key,)).fetchone()[0]
                    conn.execute("INSERT INTO attempts (row_key, attempt_no, status, kind, result_json, "
                                 "detail, started, finished, reason, parent_attempt, grading) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                 (row.key, attempt_no, status.value, kind, result_json, outcome.detail,
                                  started, finished, code, parent, grading))
                    for name, (sha, size) in refs.items():
                        conn.execute("INSERT INTO attempt_artifacts VALUES (?, ?, ?, ?, ?)",
                                     (row.key, attempt_no, name, sha, size))
                    if SUBMISSION_ARTIFACT in refs:
                        conn.execute("INSERT INTO submissions VALUES (?, ?, ?)",
                                     (row.key, attempt_no, refs[SUBMISSION_ARTIFACT][0]))
                    for name, status_text, detail in checks_of(stored):
                        conn.execute("INSERT INTO check_results VALUES (?, ?, ?, ?, ?)",
                                     (row.key, attempt_no, name, status_text, detail))
                    for metric, value in scores_of(stored):
                        conn.execute("INSERT INTO scores VALUES (?, ?, ?, ?)",
                                     (row.key, attempt_no, metric, value))
            except BaseException:
                for sha in fresh:
                    self.artifacts.discard(sha)
                raise
        return Attempt(row_key=row.key, attempt_no=attempt_no, status=status, kind=kind,
                       result=outcome.result, detail=outcome.detail, started=started, finished=finished,
                       artifacts={n: s for n, (s, _) in refs.items()}, reason=code,
                       parent=parent, grading=grading)

    def attempts(self, row: Row | str) -> list[Attempt]:
        key = row if isinstance(row, str) else row.key
        return self._all_attempts(key).get(key, [])

    def _all_attempts(self, key: str | None = None, *, results: bool = True) -> dict[str, list[Attempt]]:
        """Every attempt (of row `key`), by row key in attempt order; without `results` their results are
        left unread (`_UNREAD`: what selection and counting need is the status), for `_read_results`."""
        where, params = ("WHERE row_key = ?", (key,)) if key is not None else ("", ())
        arts: dict[tuple[str, int], dict[str, str]] = {}
        for r in self._query(f"SELECT row_key, attempt_no, name, sha256 FROM attempt_artifacts {where}",
                             params):
            arts.setdefault((r["row_key"], r["attempt_no"]), {})[r["name"]] = r["sha256"]
        out: dict[str, list[Attempt]] = {}
        model = self.result_model
        columns = "*" if results else ", ".join(_ATTEMPT_COLUMNS)
        for r in self._query(f"SELECT {columns} FROM attempts {where} ORDER BY row_key, attempt_no", params):
            result = read_result(model, json.loads(r["result_json"])) if results else _UNREAD
            out.setdefault(r["row_key"], []).append(Attempt(
                row_key=r["row_key"], attempt_no=r["attempt_no"], status=RowStatus(r["status"]),
                kind=r["kind"], result=result, detail=r["detail"],
                started=r["started"], finished=r["finished"],
                artifacts=arts.get((r["row_key"], r["attempt_no"]), {}), reason=r["reason"],
                parent=r["parent_attempt"], grading=r["grading"]))
        return out

    def _read_results(self, chosen: Sequence[Attempt | None]) -> list[Attempt | None]:
        """`chosen` (attempts read without results) with their results read, through `result_model`."""
        wanted = {(a.row_key, a.attempt_no) for a in chosen if a is not None}
        if not wanted:
            return list(chosen)
        model = self.result_model
        texts = {(r["row_key"], r["attempt_no"]): r["result_json"]
                 for r in self._query("SELECT row_key, attempt_no, result_json FROM attempts")}
        return [None if a is None else dataclasses.replace(
                    a, result=read_result(model, json.loads(texts[(a.row_key, a.attempt_no)])))
                for a in chosen]

    def selected_attempt(self, row: Row, grading: str = ORIGINAL) -> Attempt | None:
        return select_attempt(self.attempts(row), grading)

    def selected_outcome(self, row: Row, *, with_artifacts: bool = True,
                         grading: str = ORIGINAL) -> RowOutcome | None:
        """The outcome of the selected attempt (see `select_attempt`), artifacts loaded as bytes."""
        attempt = self.selected_attempt(row, grading)
        return None if attempt is None else self.to_outcome(attempt, with_artifacts=with_artifacts)

    def to_outcome(self, attempt: Attempt, *, with_artifacts: bool = True) -> RowOutcome:
        blobs = ({n: self.artifacts.get(s) for n, s in attempt.artifacts.items()}
                 if with_artifacts else {})
        return RowOutcome(status=attempt.status, result=attempt.result, detail=attempt.detail,
                          artifacts=blobs, reason=as_reason(attempt.reason))

    def next_step(self, row: Row, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> NextStep:
        return next_step(self.attempts(row), max_attempts)

    def rows_to_run(self, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[Row]:
        """Planned rows that are not finished, in plan order."""
        by_key = self._all_attempts(results=False)
        return [row for row in self.plan()
                if next_step(by_key.get(row.key, []), max_attempts) != NextStep.DONE]

    def outcomes(self, *, with_artifacts: bool = False,
                 grading: str = ORIGINAL) -> list[tuple[Row, RowOutcome]]:
        """Every planned row that has an attempt, with its selected outcome (under `grading`), in plan order.

        Artifacts are not loaded unless asked (`with_artifacts=True`): summaries rarely need them.
        """
        return [(row, self.to_outcome(attempt, with_artifacts=with_artifacts))
                for row, attempt, _ in self.selected_attempts(grading) if attempt is not None]

    def selected_attempts(self, grading: str = ORIGINAL) -> list[tuple[Row, Attempt | None, int]]:
        """Every planned row with its selected attempt (or None) and its number of attempts."""
        by_key = self._all_attempts(results=False)  # only the selected attempts' results are read
        plan = self.plan()
        chosen = self._read_results([select_attempt(by_key.get(row.key, []), grading) for row in plan])
        return [(row, attempt, len(by_key.get(row.key, []))) for row, attempt in zip(plan, chosen, strict=True)]

    # ---- gradings (`reqbench regrade`) -----------------------------------------------------------
    def add_grading(self, label: str, judge: str, checks: bool, note: str = "") -> None:
        """Register a grading label (idempotent: a regrade may be resumed under the same label)."""
        with self._tx() as conn:
            conn.execute("INSERT OR IGNORE INTO gradings VALUES (?, ?, ?, ?, ?)",
                         (label, utc_now(), judge, int(checks), note))

    def gradings(self) -> list[dict[str, Any]]:
        """``original`` first, then each regrade in creation order: label, judge, checks, created, note."""
        meta = self.meta
        first = {"label": ORIGINAL, "judge": str(meta.options.get("judge", "")), "checks": True,
                 "created": meta.created, "note": "reqbench run"}
        return [first, *({"label": r["label"], "judge": r["judge"], "checks": bool(r["checks"]),
                          "created": r["created"], "note": r["note"]}
                         for r in self._query("SELECT * FROM gradings ORDER BY created, label"))]

    def counts(self, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> dict[str, int]:
        """Row counts by selected status, plus unstarted, unfinished and the number of attempts."""
        by_key = self._all_attempts(results=False)
        counts = {"planned": 0, "scored": 0, "pending": 0, "invalid": 0, "unstarted": 0,
                  "unfinished": 0, "attempts": 0}
        for row in self.plan():
            attempts = by_key.get(row.key, [])
            selected = select_attempt(attempts)
            counts["planned"] += 1
            counts["attempts"] += len(attempts)
            counts[selected.status.value if selected else "unstarted"] += 1
            counts["unfinished"] += next_step(attempts, max_attempts) != NextStep.DONE
        return counts

    def check_results(self, row: Row, attempt_no: int) -> list[dict[str, Any]]:
        return [{"check": r["check_name"], "status": r["status"], "detail": json.loads(r["detail_json"])}
                for r in self._query("SELECT * FROM check_results WHERE row_key = ? AND attempt_no = ? "
                                     "ORDER BY check_name", (row.key, attempt_no))]

    def scores(self, row: Row, attempt_no: int) -> dict[str, float | None]:
        return {r["metric"]: r["value"] for r in self._query(
            "SELECT metric, value FROM scores WHERE row_key = ? AND attempt_no = ? ORDER BY metric",
            (row.key, attempt_no))}

    # ---- exports (see `store.export`) ------------------------------------------------------------
    def export_jsonl(self, path: Path) -> int:
        from reqbench.core.store.export import export_jsonl
        return export_jsonl(self, path)

    def export_parquet(self, path: Path) -> int:
        from reqbench.core.store.export import export_parquet
        return export_parquet(self, path)


def _row(r: sqlite3.Row) -> Row:
    return Row(task_id=r["task_id"], condition=r["condition"], agent=r["agent"], repeat=r["repeat"])


def _first_missing_ancestor(path: Path) -> Path | None:
    """The top-most ancestor of `path` (inclusive) that does not exist yet, to undo a failed create."""
    missing = None
    for candidate in [path, *path.parents]:
        if candidate.exists():
            break
        missing = candidate
    return missing

