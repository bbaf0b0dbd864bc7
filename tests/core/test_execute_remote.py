"""Rows that run in other processes: the suite and the run's model calls travel with the row call.

Threats guarded: a remote row reading the driver's suite path (no shared file system on a cluster); run
state (record/replay cache, offline mode) reaching rows only through module globals of the driver's
process; model calls recorded by a remote row lost instead of landing in the driver's run store; an
offline remote row sending a request; a suite tarball whose bytes differ for equal content.
A real spawned process pool stands in for the cluster (Ray itself: tests/integration/test_ray.py).
"""

from __future__ import annotations

import json
import os
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.errors import InputError
from reqbench.core.execute.executor import InProcess
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.shipping import pack_suite, unpack_suite
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.llm.run_access import default_cache, run_offline
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.support.stub_protocol import StubProtocol, StubSuite

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`


class EchoProtocol(StubProtocol):
    """Shipped to the workers (picklable); each worker loads the suite it is sent."""

    name = "echo"

    def load(self, path: Path) -> EchoSuite:
        return EchoSuite(self, path)


class EchoSuite(StubSuite):
    """Each row asks its "model" (the row's cache) once: replays a recorded answer or records one."""

    def __init__(self, protocol: EchoProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path

    def plan(self, options: RunOptions) -> list[Row]:
        tasks = json.loads((self.path / "tasks.json").read_text())
        return [Row(t, "C", options.agent, 0) for t in tasks]

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        path, work_dir = self.path, ctx.work_dir
        cache = default_cache()
        assert cache is not None
        key = f"k-{row.task_id}"
        replayed = cache.get_cached(key)
        if replayed is None:
            if run_offline():
                raise InputError("no recorded response", item=key)
            cache.put_cached(key, {"answer": row.task_id.upper()})
        return RowOutcome(RowStatus.SCORED, result={
            "suite": str(path), "tasks": json.loads((path / "tasks.json").read_text()), "pid": os.getpid(),
            "replayed": replayed is not None, "offline": run_offline(), "work": str(work_dir)})

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        return previous


class SpawnedExecutor:
    """A remote executor made of spawned processes: arguments are pickled, no memory is shared."""

    name = "spawned"
    remote = True
    concurrency = 2

    def __init__(self) -> None:
        self._pool = ProcessPoolExecutor(2, mp_context=get_context("spawn"))

    def submit(self, fn: Any, /, *args: Any) -> Future[Any]:
        return self._pool.submit(fn, *args)

    def put(self, value: Any) -> InProcess:
        return InProcess(value)

    def shutdown(self) -> None:
        self._pool.shutdown()


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    path = tmp_path / "suite"
    path.mkdir()
    (path / "tasks.json").write_text(json.dumps(["a", "b", "c"]))
    return path


def new_store(tmp_path: Path, name: str) -> RunStore:
    return RunStore.create(tmp_path / name, RunMeta(suite_path="/s", protocol="echo", options={},
                                                    created=utc_now(), reqbench_version="0"))


def test_remote_rows_get_the_suite_by_content_and_their_model_calls_land_in_the_driver_store(tmp_path, suite):
    executor = SpawnedExecutor()
    try:
        with new_store(tmp_path, "run") as store:
            execute_run(store, EchoProtocol().load(suite), RunOptions(agent="x"), executor=executor)
            results = [o.result.stored() for _, o in store.outcomes()]
            calls = store.cached_items("llm")
    finally:
        executor.shutdown()
    digest, _ = pack_suite(suite)
    assert len(results) == 3 and {r["pid"] for r in results}.isdisjoint({os.getpid()})
    assert {r["suite"] for r in results} == {str(tmp_path / "cache" / "suites" / digest / "suite")}
    assert all(r["tasks"] == ["a", "b", "c"] and not r["replayed"] for r in results)
    assert not any(r["work"].startswith(str(tmp_path / "run")) for r in results)  # worker-local scratch
    assert calls == {f"k-{t}": {"answer": t.upper()} for t in "abc"}


def test_an_offline_remote_row_replays_the_shipped_calls_and_stops_on_an_unrecorded_one(tmp_path, suite):
    executor = SpawnedExecutor()
    try:
        with new_store(tmp_path, "run") as store:
            for t in "ab":
                store.put_cached("llm", f"k-{t}", {"answer": t})
            with pytest.raises(InputError, match="no recorded response"):
                execute_run(store, EchoProtocol().load(suite), RunOptions(agent="x", offline=True),
                            executor=executor)
            done = {row.task_id: o.result.stored() for row, o in store.outcomes()}
    finally:
        executor.shutdown()
    assert "c" not in done  # the unrecorded row keeps no attempt
    assert all(r["replayed"] and r["offline"] for r in done.values())


def test_the_suite_tarball_is_deterministic_and_unpacks_once(tmp_path: Path, suite: Path) -> None:
    (suite / "sub").mkdir()
    (suite / "sub" / "run.sh").write_text("echo hi\n")
    (suite / "sub" / "run.sh").chmod(0o755)
    (suite / "__pycache__").mkdir()
    (suite / "__pycache__" / "x.pyc").write_bytes(b"junk")
    digest, blob = pack_suite(suite)
    os.utime(suite / "tasks.json", (1, 1))
    assert pack_suite(suite) == (digest, blob)  # times are not content
    out = unpack_suite(digest, "suite", blob, root=tmp_path / "u")
    assert (out / "tasks.json").read_text() == (suite / "tasks.json").read_text()
    assert os.access(out / "sub" / "run.sh", os.X_OK) and not (out / "__pycache__").exists()
    assert unpack_suite(digest, "suite", fetch=lambda: pytest.fail("fetched again"), root=tmp_path / "u") == out
    with pytest.raises(ValueError, match="does not match"):
        unpack_suite("0" * 64, "suite", blob, root=tmp_path / "u")
