"""Remote rows and task environments: the batch's `RunContext` carries the run's built environments by key;
a worker whose machine does not have the driver's folder finds the environment in its own cache by that
key (or builds it there from the block, once per process), never per row, and its checks run in it.

A real spawned process pool stands in for the cluster (as in `test_execute_remote`); the "other machine" is
a BuiltEnvironment whose folder does not exist where the worker looks.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from reqbench.core.checks import Check, run_check
from reqbench.core.environments import ensure_built, load_environment
from reqbench.core.execute.environments import RunEnvironments
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from tests.core.test_execute_remote import SpawnedExecutor, new_store
from tests.security.conftest import require_bwrap  # noqa: F401 - the shared fixture
from tests.support.stub_protocol import StubProtocol, StubSuite

pytestmark = pytest.mark.slow

BLOCK = {"python": {"interpreter": "host", "requirements": ["six==1.17.0"]}}


class SixProtocol(StubProtocol):
    name = "six"

    def load(self, path: Path) -> SixSuite:
        return SixSuite(self, path)


class SixSuite(StubSuite):
    """Each row's check imports six (only the environment has it)."""

    def __init__(self, protocol: SixProtocol, path: Path) -> None:
        self.protocol = protocol
        self.path = path

    def plan(self, options: RunOptions) -> list[Row]:
        return [Row(t, "C", options.agent, 0) for t in ("a", "b")]

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        ws = ctx.work_dir / "ws"
        ws.mkdir()
        check = run_check(Check(name="six", command="{python} -c 'import six'", timeout_seconds=60), ws)
        where = str(ctx.environment.built.path) if ctx.environment is not None else ""
        return RowOutcome(RowStatus.SCORED, result={"status": check.status.value, "pid": os.getpid(),
                                                    "environment": where})

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        return previous


def test_a_worker_finds_the_environment_by_key_and_its_checks_run_in_it(
        require_bwrap: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))  # the workers' cache (inherited)
    suite = tmp_path / "suite"
    suite.mkdir()
    try:
        built = ensure_built(load_environment(BLOCK, origin="test", base_dir=suite), suite)
    except Exception as exc:  # noqa: BLE001 - no package registry here
        pytest.skip(f"cannot build the test environment here: {exc}")
    elsewhere = dataclasses.replace(built, path=tmp_path / "driver-only" / built.key,
                                    binds=tuple((tmp_path / "driver-only" / "x", i) for _, i in built.binds))
    executor = SpawnedExecutor()
    try:
        with new_store(tmp_path, "run") as store:
            execute_run(store, SixProtocol().load(suite), RunOptions(agent="x"), executor=executor,
                        environments=RunEnvironments(default=elsewhere))
            results = [o.result.stored() for _, o in store.outcomes()]
    finally:
        executor.shutdown()
    assert [r["status"] for r in results] == ["PASS", "PASS"], results
    assert {r["environment"] for r in results} == {str(built.path)}
    assert {r["pid"] for r in results}.isdisjoint({os.getpid()})
