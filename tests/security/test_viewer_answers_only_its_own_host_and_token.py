"""`reqbench view` gives runs only to the browser that opened the URL it printed, at its own host name.

A web page the user visits can reach 127.0.0.1: by DNS rebinding (its own name re-pointed at 127.0.0.1,
so its script may read the answers, which then carry ``Host: attacker.example``) or by loading viewer URLs
from its own origin (no token, and no SameSite=Strict cookie on a cross-site request). Both must get 403
and no run data; the person who started the viewer gets everything (`report.viewer.access`). Real server
on 127.0.0.1, real HTTP.
"""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.hashing import sha256_bytes
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.viewer import ViewerServer, make_server
from tests.cli.generic_helpers import REPO, cli_env
from tests.support.viewer_client import logged_in

SECRET_TASK = "secret-task-7f3a"
SECRET_PATCH = b"--- a/app.py\n+++ b/app.py\n+SECRET_ARTIFACT_91c2\n"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("viewer-access")
    meta = RunMeta(suite_path=str(root / "no-suite"), protocol="toy", options={"agent": "reference"},
                   created=utc_now(), reqbench_version="test")
    row = Row(task_id=SECRET_TASK, condition="A", agent="reference", repeat=0)
    with RunStore.create(root / "run", meta) as store:
        store.add_plan([row])
        store.record_attempt(row, RowOutcome(status=RowStatus.SCORED, result={"value": 1},
                                             artifacts={"patch": SECRET_PATCH}))
    return root / "run"


@pytest.fixture
def server(run_dir: Path) -> Iterator[ViewerServer]:
    srv = make_server(run_dir, port=0, hosts=("tunnel.example",))
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        srv.viewer.close()


def request(srv: ViewerServer, path: str, host: str | None = None,
            cookie: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """GET `path` with exactly this Host header (default the viewer's own) and Cookie header."""
    port = srv.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": host if host is not None else f"127.0.0.1:{port}"}
    if cookie is not None:
        headers["Cookie"] = cookie
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def data_paths(srv: ViewerServer) -> list[str]:
    key = quote(Row(SECRET_TASK, "A", "reference", 0).key, safe="")
    return ["/", "/run/run/", "/run/run/rows", f"/run/run/row?key={key}", "/run/run/api/rows",
            f"/run/run/artifact/{sha256_bytes(SECRET_PATCH)}", "/compare?a=run&b=run"]


def cookie(srv: ViewerServer) -> str:
    return f"{srv.gate.cookie_name}={srv.token}"


def assert_refused(answer: tuple[int, dict[str, str], bytes], what: str) -> None:
    status, headers, body = answer
    assert status == 403, f"{what}: {status}"
    assert SECRET_TASK.encode() not in body and b"SECRET_ARTIFACT" not in body and b"run.sqlite" not in body
    assert "set-cookie" not in headers, what


def test_a_rebound_host_name_gets_no_run_data_even_with_the_token(server: ViewerServer) -> None:
    port = server.server_address[1]
    for host in ("attacker.example", f"attacker.example:{port}", f"127.0.0.1.attacker.example:{port}",
                 f"127.0.0.1:{port + 1}", f"localhost:{port}@attacker.example", "", f"[::2]:{port}"):
        for path in data_paths(server):
            assert_refused(request(server, path, host=host, cookie=cookie(server)), f"Host {host!r} {path}")
        assert_refused(request(server, f"/?token={server.token}", host=host), f"Host {host!r} login")


def test_a_request_without_the_launch_token_gets_no_run_data(server: ViewerServer) -> None:
    others = ["", f"{server.gate.cookie_name}=wrong", f"reqbench-view-{server.server_address[1] + 1}={server.token}",
              f"{server.gate.cookie_name}={server.token[:-1]}"]
    for path in data_paths(server):
        for jar in others:
            assert_refused(request(server, path, cookie=jar or None), f"{path} with cookie {jar!r}")
        sep = "&" if "?" in path else "?"
        assert_refused(request(server, f"{path}{sep}token=not-the-token"), f"{path} with a wrong token")


def test_the_printed_url_logs_the_browser_in_and_then_every_page_opens(server: ViewerServer) -> None:
    status, headers, body = request(server, f"/run/run/rows?status=scored&token={server.token}")
    assert status == 303 and body == b""
    assert headers["location"] == "/run/run/rows?status=scored"  # the token leaves the address bar
    set_cookie = headers["set-cookie"]
    assert set_cookie.startswith(cookie(server) + ";")
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie and "Path=/" in set_cookie
    assert headers["referrer-policy"] == "no-referrer"

    port = server.server_address[1]
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", f"LOCALHOST:{port}",
                 f"tunnel.example:{port}"):
        for path in data_paths(server):
            status, _, body = request(server, path, host=host, cookie=cookie(server))
            assert status == 200, (host, path)
    assert SECRET_TASK.encode() in request(server, "/run/run/api/rows", cookie=cookie(server))[2]
    assert request(server, data_paths(server)[5], cookie=cookie(server))[2] == SECRET_PATCH


def test_a_host_option_must_be_a_bare_host_name(run_dir: Path) -> None:
    for bad in ("evil.example:80", "http://evil.example", "a/b", "", "two words", "*"):
        with pytest.raises(InputError, match="--host"):
            make_server(run_dir, port=0, hosts=(bad,))


def test_reqbench_view_prints_a_url_with_its_token_and_refuses_requests_without_it(run_dir: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "reqbench", "view", str(run_dir), "--port", "0"],
                            env=cli_env(), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        assert match, line
        url = match.group(0)
        assert len(parse_qs(urlsplit(url).query)["token"][0]) >= 40  # 256 random bits
        conn = http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=30)
        conn.request("GET", "/run/run/api/rows")
        resp = conn.getresponse()
        assert resp.status == 403 and SECRET_TASK.encode() not in resp.read()
        conn.close()
        status, _, body = logged_in(url).get(f"http://127.0.0.1:{match.group(1)}/run/run/api/rows")
        assert status == 200 and SECRET_TASK.encode() in body
    finally:
        proc.kill()
        proc.wait(timeout=30)

    refused = subprocess.run([sys.executable, "-m", "reqbench", "view", str(run_dir), "--host", "evil.example/x"],
                             env=cli_env(), cwd=REPO, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "--host" in refused.stderr
