"""``--executor ray`` against a real Ray cluster on this machine (`make test-ray`).

A head node with 2 CPUs is started by ``ray start --head`` in its own process group (ended by that group
in teardown); runs reach it through ``RAY_ADDRESS`` and a private ``$REQBENCH_CACHE``, so the suite can only
reach the workers as the shipped tarball. Threats guarded: scores that differ between executors on the
same plan; a driver killed mid-run (SIGKILL) leaving a run that cannot be finished on either executor; a
row host killed mid-run failing more than its own rows, or leaving its rows unfinished.
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
HEADS: dict[str, int] = {}
"""RAY_ADDRESS -> pid of the `ray start --head` process whose descendants are that cluster's processes."""


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
    HEADS[env["RAY_ADDRESS"]] = head.pid
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


def row_hosts(env: dict[str, str]) -> list[int]:
    """Pids of the row hosts (actors titled ``ray::RowHost``) of the cluster at ``env``: its head's descendants."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            pid, ppid = int(stat.parent.name), int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)
    found, todo = [], list(children.get(HEADS[env["RAY_ADDRESS"]], []))
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            title = (Path(f"/proc/{pid}/comm").read_text() + Path(f"/proc/{pid}/cmdline").read_text())
        except OSError:
            continue
        if "ray::RowHost" in title:
            found.append(pid)
    return found


def test_a_row_host_killed_midway_fails_only_its_rows_which_are_run_again(cluster, tmp_path):
    """SIGKILL one of the 2 row hosts while all 21 rows are in flight: the rows it ran become invalid attempts
    (infrastructure) and run again on a host Ray restarts without the values it kept; the other host's rows
    are untouched and every row ends scored."""
    out = tmp_path / "run"
    proc = subprocess.Popen([str(BIN / "reqbench"), "run", "demo:specpath", "--agent", "command", "--agent-opt",
                             "template=sleep 4", "--executor", "ray", "--concurrency", str(PLANNED),
                             "--out", str(out), "--quiet"], env=cluster, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(hosts := row_hosts(cluster)) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "the run's row hosts did not come up"
        time.sleep(0.2)
    time.sleep(2)  # the rows are sent within a second of the hosts' start; each waits 4 s
    assert proc.poll() is None
    os.kill(hosts[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode in (0, 1), stdout[-3000:] + stderr[-3000:]
    with sqlite3.connect(f"file:{out / 'run.sqlite'}?mode=ro", uri=True) as conn:
        failed = conn.execute("SELECT reason, COUNT(*) FROM attempts WHERE status = 'invalid' GROUP BY reason").fetchall()
        total = conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0]
        scored = conn.execute("SELECT COUNT(DISTINCT row_key) FROM attempts WHERE status = 'scored'").fetchone()[0]
    assert len(failed) == 1 and failed[0][0] == "infrastructure", failed
    assert 1 <= failed[0][1] <= (PLANNED + 1) // 2  # the killed host's rows only (it had about half of them)
    assert total == PLANNED + failed[0][1]  # each failed row ran once more
    assert scored == PLANNED


RESTARTED_HOST_DRIVER = """
import sys
from operator import methodcaller
from reqbench.core.execute.ray_executor import RayExecutor
executor = RayExecutor(concurrency=2)
try:
    shared, read = executor.put({"suite": "x" * 1000}), methodcaller("get")
    for phase in ("first", "again"):
        got = [f.result(timeout=120) for f in [executor.submit(read, shared) for _ in range(6)]]
        assert got == [{"suite": "x" * 1000}] * 6, got
        print(phase, "ok", flush=True)
        if phase == "first":
            sys.stdin.readline()  # the test kills the hosts, Ray restarts them
finally:
    executor.shutdown()
"""


def test_a_row_host_restarted_between_rows_gets_the_shared_values_again(cluster):
    """A host keeps each shared value once; killed while idle (the driver sees no failure), Ray restarts it
    empty: the next rows naming a value it kept are refused before they run and sent again with it."""
    driver = subprocess.Popen([sys.executable, "-c", RESTARTED_HOST_DRIVER], env=cluster, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert driver.stdout is not None and driver.stdin is not None
        assert driver.stdout.readline() == "first ok\n", driver.communicate(timeout=60)
        killed = row_hosts(cluster)
        assert len(killed) == 2
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 120
        while len(set(row_hosts(cluster)) - set(killed)) < 2:
            assert time.monotonic() < deadline, "Ray did not restart the row hosts"
            time.sleep(0.2)
        stdout, stderr = driver.communicate("go\n", timeout=180)
        assert driver.returncode == 0 and "again ok" in stdout.splitlines(), stdout[-3000:] + stderr[-3000:]
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
