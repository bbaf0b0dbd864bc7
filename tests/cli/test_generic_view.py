"""`reqbench view` serves a run over real HTTP on 127.0.0.1: overview, rows, attempt detail, artifacts."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import Row, RunOptions
from reqbench.core.hashing import sha256_bytes
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.viewer import make_server
from tests.cli.generic_helpers import REPO, cli_cmd, cli_env
from tests.core.toy_protocol import ToyProtocol, write_suite
from tests.support.viewer_client import logged_in


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    tasks = [{"id": "ok<b>", "value": 2}, {"id": "bad", "behaviour": "crash"},
             {"id": "flaky", "value": 1, "behaviour": "flaky-1"}]
    suite = write_suite(tmp_path / "suite", tasks, conditions=("A",))
    meta = RunMeta(suite_path=str(suite), protocol="toy", options={"agent": "reference", "seed": 1},
                   created=utc_now(), reqbench_version="0")
    with RunStore.create(tmp_path / "run", meta) as store:
        execute_run(store, ToyProtocol().load(suite), RunOptions(), max_attempts=2)
    return tmp_path / "run"


def test_viewer_serves_overview_rows_attempts_and_artifacts(run_dir: Path) -> None:
    server = make_server(run_dir, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    get = logged_in(server.url).get
    try:
        status, ctype, body = get(base + "/")
        assert status == 200 and ctype.startswith("text/html")
        assert b"protocol" in body and b'href="/run/run/rows?status=invalid">1<' in body
        base += "/run/run"

        status, _, body = get(base + "/rows")
        assert status == 200
        assert b"ok&lt;b&gt;|A|reference|0" in body and b"<b>" not in body  # ids are escaped

        status, _, body = get(base + "/rows?status=invalid")
        assert b"bad|A|reference|0" in body and b"ok&lt;b&gt;" not in body

        ok_key = Row("ok<b>", "A", "reference", 0).key
        status, _, body = get(base + "/row?key=" + quote(ok_key, safe=""))
        assert status == 200 and b"attempt 1 (selected)" in body and b"&quot;value&quot;: 2" in body

        status, _, body = get(base + "/row?key=" + quote("bad|A|reference|0", safe=""))
        # a harness exception is attrition at its first attempt (never an agent re-run): its traceback is shown
        assert b"attempt 1 (selected)" in body and b"RuntimeError: toy bug in bad" in body

        status, _, body = get(base + "/row?key=" + quote("flaky|A|reference|0", safe=""))
        assert b"<h2>attempt 2 (selected)" in body and b"attempt 1: <span" in body  # a provider limit re-runs

        patch = b"--- a/ok<b>\n+++ b/ok<b>\n+2\n"
        status, ctype, body = get(base + "/artifact/" + sha256_bytes(patch))
        assert status == 200 and ctype.startswith("text/plain") and body == patch

        status, ctype, body = get(base + "/api/rows")
        assert ctype == "application/json"
        assert {r["status"] for r in json.loads(body)["rows"]} == {"scored", "invalid"}

        assert get(base + "/artifact/" + "0" * 64)[0] == 404
        assert get(base + "/row?key=nope")[0] == 404
        assert get(base + "/../run.sqlite")[0] == 404
    finally:
        server.shutdown()
        server.server_close()
        server.viewer.close()


def test_view_command_listens_on_loopback(run_dir: Path) -> None:
    env = cli_env()
    proc = subprocess.Popen(cli_cmd("view", str(run_dir), "--port", "0"), env=env, cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        assert match, line + (proc.stderr.read() if proc.poll() is not None and proc.stderr else "")
        status, _, body = logged_in(match.group(0)).get(match.group(0))
        assert status == 200 and b"scored rows" in body  # the protocol's summary table is on the overview
    finally:
        proc.kill()
        proc.wait(timeout=30)
