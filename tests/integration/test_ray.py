"""``--executor ray`` against a real Ray cluster on this machine (`make test-ray`).

A head node with 2 CPUs is started by ``ray start --head`` in its own process group (ended by that group
in teardown); runs reach it through ``RAY_ADDRESS`` and a private ``$REQBENCH_CACHE``, so the suite can only
reach the workers as the shipped tarball. Threats guarded: scores that differ between executors on the
same plan; a driver killed mid-run (SIGKILL) leaving a run that cannot be finished on either executor.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")
pytestmark = pytest.mark.integration

BIN = Path(sys.executable).parent
PLANNED = 21  # demo:specpath: 3 families x 7 conditions


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def cluster() -> Iterator[dict[str, str]]:
    temp = tempfile.mkdtemp(prefix="rq-ray-", dir="/tmp")  # Ray's socket paths must stay short
    port = _free_port()
    token = Path(temp) / "auth_token"  # the cluster's own token: never a token file shared in ~/.ray
    token.write_text(secrets.token_hex(32))
    env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{port}", "REQBENCH_CACHE": f"{temp}/cache",
           "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    head = subprocess.Popen([str(BIN / "ray"), "start", "--head", "--block", "--num-cpus", "2",
                             "--node-ip-address", "127.0.0.1",  # loopback only
                             "--port", str(port), "--include-dashboard", "false", "--disable-usage-stats",
                             "--temp-dir", temp], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)  # workers unpack suites in its cache
    try:
        deadline = time.monotonic() + 90
        while subprocess.run([str(BIN / "ray"), "status", "--address", env["RAY_ADDRESS"]], env=env,
                             capture_output=True).returncode != 0:
            assert head.poll() is None and time.monotonic() < deadline, "ray head did not come up"
            time.sleep(1)
        yield env
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(head.pid, sig)
            except ProcessLookupError:
                break
            time.sleep(3)
        head.wait()


def reqbench(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "reqbench"), *args, "--quiet"], env=env, capture_output=True, text=True,
                          timeout=600)


def run(env: dict[str, str], out: Path, executor: str) -> None:
    proc = reqbench(env, "run", "demo:specpath", "--agent", "reference", "--executor", executor,
                    "--concurrency", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def scores(out: Path) -> dict[str, Any]:
    """Per row: status, outcome and signature of the selected attempt; and the protocol's summary."""
    from reqbench.core.store import RunStore
    from reqbench.protocols.specpath.suite import PROTOCOL

    with RunStore.open(out, read_only=True) as store:
        rows = store.outcomes()
        suite = Path(store.meta.suite_path)
    per_row = {r.key: (o.status.value, o.result.outcome, o.result.signature) for r, o in rows}
    return {"rows": per_row, "summary": PROTOCOL.load(suite).summarize(rows).to_json()}


def attempts(out: Path) -> int:
    try:
        with sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])
    except sqlite3.Error:
        return 0


def kill_midway(env: dict[str, str], out: Path, executor: str) -> int:
    """Start a run, SIGKILL its driver once 3 rows are stored; returns the attempts it left."""
    proc = subprocess.Popen([str(BIN / "reqbench"), "run", "demo:specpath", "--agent", "reference",
                             "--executor", executor, "--concurrency", "2", "--out", str(out), "--quiet"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while attempts(out) < 3:
        assert proc.poll() is None and time.monotonic() < deadline, "run ended before it could be killed"
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return attempts(out)


@pytest.fixture(scope="module")
def local_scores(cluster: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("local") / "run"
    run(cluster, out, "local")
    return scores(out)


def test_ray_scores_equal_the_local_executor_on_the_same_plan(cluster, local_scores, tmp_path):
    run(cluster, tmp_path / "ray", "ray")
    got = scores(tmp_path / "ray")
    assert len(got["rows"]) == PLANNED and all(s == "scored" for s, _, _ in got["rows"].values())
    assert got == local_scores
    shipped = list((Path(cluster["REQBENCH_CACHE"]) / "suites").glob("*/specpath/suite.yaml"))
    assert len(shipped) == 1  # the workers read the suite from the unpacked tarball


@pytest.mark.parametrize(("first", "then"), [("ray", "local"), ("local", "ray")])
def test_a_run_killed_midway_resumes_on_either_executor(cluster, local_scores, tmp_path, first, then):
    out = tmp_path / "run"
    left = kill_midway(cluster, out, first)
    assert 3 <= left < PLANNED
    proc = reqbench(cluster, "run", "--resume", str(out), "--executor", then, "--concurrency", "2")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert scores(out) == local_scores
    assert attempts(out) == PLANNED  # rows stored before the kill were not run again


def most_in_flight(out: Path) -> int:
    """Most attempts running at once, from their recorded start and end (ends first at a tie)."""
    with sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True) as conn:
        spans = conn.execute("SELECT started, finished FROM attempts WHERE kind = 'run'").fetchall()
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    most = now = 0
    for _, step in events:
        now += step
        most = max(most, now)
    return most


def test_ray_runs_more_rows_at_once_than_the_cluster_has_cpus(cluster, tmp_path):
    """A row mostly waits on its processes: the 2-CPU cluster runs all 21 rows of the plan at once (a worker
    process per row ran 2 at a time, whatever --concurrency said)."""
    proc = reqbench(cluster, "run", "demo:specpath", "--agent", "command", "--agent-opt", "template=sleep 3",
                    "--executor", "ray", "--concurrency", str(PLANNED), "--out", str(tmp_path / "run"))
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    assert most_in_flight(tmp_path / "run") > 2 * 2
