"""Threat: an agent talks to something other than the model gateway (exfiltration, a second model, the
harness's own services) or reads the provider key. With ``gateway_socket`` the sandbox reaches the
gateway through the relay and nothing else; the key never enters the sandbox."""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path

import pytest

from reqbench.core.llm.gateway import Gateway, Upstream
from reqbench.core.sandbox import run_sandboxed
from reqbench.core.sandbox.bridge import BRIDGE_PORT
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import messages_body

pytestmark = pytest.mark.usefixtures("require_bwrap")

KEY = "sk-ant-provider-KEY-must-not-leak-0451"

PROBE = r'''
import json, os, socket, sys, urllib.request
token, targets = sys.argv[1], json.loads(sys.argv[2])
out = {}
req = urllib.request.Request("http://127.0.0.1:%d/v1/messages" % int(sys.argv[3]),
                             data=json.dumps({"model": "scripted", "max_tokens": 5,
                                              "messages": [{"role": "user", "content": "hi"}]}).encode(),
                             headers={"x-api-key": token, "content-type": "application/json"})
out["gateway"] = json.loads(urllib.request.urlopen(req, timeout=10).read())["content"][0]["text"]
for name, (host, port) in targets.items():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(1.0)
    try:
        s.connect((host, port))
        out[name] = "connected"
    except OSError as exc:
        out[name] = type(exc).__name__
    finally:
        s.close()
found = []
key = sys.argv[4]
if any(key in v for v in os.environ.values()):
    found.append("environ")
for root in ("/tmp", "/run", os.environ.get("HOME", "/nonexistent"), os.getcwd()):
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            try:
                if os.path.isfile(p) and key.encode() in open(p, "rb").read():
                    found.append(p)
            except OSError:
                pass
out["key_found"] = found
print(json.dumps(out))
'''


def test_sandbox_reaches_the_gateway_and_nothing_else(tmp_path: Path) -> None:
    host_server = socket.socket()
    host_server.bind(("127.0.0.1", 0))
    host_server.listen(8)
    host_server.settimeout(0.2)
    accepted: list[object] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            try:
                accepted.append(host_server.accept())
            except OSError:
                continue

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with ScriptedOpenAI(lambda body, i: Reply(body=messages_body("hello from the gateway"))) as upstream, \
            Gateway(Upstream(upstream.base_url, KEY)) as gw:
        lease = gw.open_row("row")
        gw_port = int(gw.base_url.rsplit(":", 1)[1].split("/")[0])
        targets = {"host_tcp_server": ("127.0.0.1", host_server.getsockname()[1]),
                   "gateway_tcp_port": ("127.0.0.1", gw_port),
                   "upstream": ("127.0.0.1", upstream.port),
                   "private_range": ("10.255.255.1", 80),
                   "public_address": ("1.1.1.1", 443)}
        (tmp_path / "probe.py").write_text(PROBE)
        res = run_sandboxed([sys.executable, "-I", str(tmp_path / "probe.py"), lease.token, json.dumps(targets),
                             str(BRIDGE_PORT), KEY], tmp_path, timeout=60, gateway_socket=gw.socket_path,
                            env={"ANTHROPIC_API_KEY": lease.token})
        assert res.exit_code == 0, res.stderr.decode()
        out = json.loads(res.stdout)
        assert out["gateway"] == "hello from the gateway"
        assert len(upstream.requests) == 1
        assert upstream.requests[0]["headers"]["x-api-key"] == KEY  # the key lives in the gateway only
    for name in targets:
        assert out[name] in ("ConnectionRefusedError", "OSError"), (name, out)  # refused/unreachable at once
    assert out["key_found"] == []
    assert res.wall_seconds < 30
    done.set()
    watcher.join()
    host_server.close()
    assert accepted == []
