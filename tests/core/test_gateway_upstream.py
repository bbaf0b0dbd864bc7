"""How the gateway asks the provider (`Forwarder`), against real servers on 127.0.0.1: the key in each API's
form, retries with backoff, error bodies for answers that are no JSON object, kept-alive connections (and
ones the provider closed meanwhile), compressed answers, and proxies taken from the environment."""

from __future__ import annotations

import gzip
import json
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from reqbench.core.llm.gateway import provider_wire
from reqbench.core.llm.gateway.upstream import Forwarder, Upstream
from tests.support.raw_provider import RawProvider, response
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body, messages_body

ASK = {"model": "scripted", "messages": [{"role": "user", "content": "fix it"}], "stream": True,
       "stream_options": {"include_usage": True}}


def forwarder(base_url: str, **kwargs: Any) -> Forwarder:
    return Forwarder(Upstream(base_url, "sk-provider", backoff=0.01, **kwargs))


def test_the_key_goes_in_each_apis_form_and_the_stream_fields_stay_home() -> None:
    with ScriptedOpenAI([Reply(body=chat_body("a")), Reply(body=messages_body("b"))]) as upstream:
        fwd = forwarder(upstream.base_url)
        assert fwd.forward("chat", ASK, {"openai-beta": "x", "authorization": "Bearer agent"})[0] == 200
        assert fwd.forward("messages", ASK, {"anthropic-beta": "y"})[0] == 200
        fwd.close()
    chat, messages = upstream.requests
    assert chat["path"] == "/v1/chat/completions" and chat["headers"]["authorization"] == "Bearer sk-provider"
    assert chat["headers"]["openai-beta"] == "x" and "stream" not in chat["json"]
    assert "stream_options" not in chat["json"]
    assert messages["path"] == "/v1/messages" and messages["headers"]["x-api-key"] == "sk-provider"
    assert "authorization" not in messages["headers"]
    assert (messages["headers"]["anthropic-version"], messages["headers"]["anthropic-beta"]) == ("2023-06-01", "y")


@pytest.mark.parametrize("status", [408, 409, 429, 500, 503])
def test_retryable_answers_are_asked_again_then_answered(status: int) -> None:
    with ScriptedOpenAI([Reply(status=status, body={"error": {"message": "later"}}),
                         Reply(body=chat_body("ok"))]) as upstream:
        fwd = forwarder(upstream.base_url)
        got = fwd.forward("chat", ASK, {})
        fwd.close()
    assert got[0] == 200 and got[1]["choices"][0]["message"]["content"] == "ok"
    assert fwd.requests == 2 and len(upstream.requests) == 2


def test_a_refusal_is_returned_at_once_and_the_last_retryable_one_after_every_attempt() -> None:
    with ScriptedOpenAI([Reply(status=400, body={"error": {"message": "bad"}})]) as upstream:
        fwd = forwarder(upstream.base_url)
        assert fwd.forward("chat", ASK, {}) == (400, {"error": {"message": "bad"}}) and fwd.requests == 1
    with ScriptedOpenAI([Reply(status=529, body={"error": {"message": "overloaded"}})] * 3) as upstream:
        fwd = forwarder(upstream.base_url)
        assert fwd.forward("chat", ASK, {}) == (529, {"error": {"message": "overloaded"}}) and fwd.requests == 3


@pytest.mark.parametrize(("raw", "says"), [(b"<html>busy</html>", "non-JSON (HTTP 200)"),
                                           (b"[1, 2]", "non-object")])
def test_an_answer_that_is_no_json_object_becomes_an_error_body(raw: bytes, says: str) -> None:
    with ScriptedOpenAI([Reply(raw=raw)]) as upstream:
        status, body = forwarder(upstream.base_url).forward("messages", ASK, {})
    assert status == 200 and body["type"] == "error" and says in body["error"]["message"]
    assert body["error"]["reqbench"] == "upstream_error"


def test_an_unreachable_provider_is_a_502_after_every_attempt() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens on it
    fwd = forwarder(f"http://127.0.0.1:{port}/v1")
    status, body = fwd.forward("chat", ASK, {})
    assert status == 502 and "upstream unreachable: ConnectionRefusedError" in body["error"]["message"]
    assert fwd.requests == 3
    assert forwarder("ftp://127.0.0.1/v1").forward("chat", ASK, {})[0] == 502


def _keep_alive(answers_per_connection: int) -> Any:
    """A provider answering `answers_per_connection` calls on a connection, then closing it unannounced."""
    def serve(conn: socket.socket, provider: RawProvider) -> None:
        for _ in range(answers_per_connection):
            if not provider.read_request(conn):
                return
            conn.sendall(response(json.dumps(chat_body("ok")).encode()))
    return serve


def test_sequential_calls_share_one_kept_alive_connection() -> None:
    with RawProvider(_keep_alive(1000)) as provider:
        fwd = forwarder(provider.base_url)
        assert all(fwd.forward("chat", ASK, {})[0] == 200 for _ in range(20))
        fwd.close()
    assert provider.connections == 1 and len(provider.requests) == 20


def test_a_kept_alive_connection_the_provider_closed_is_replaced_without_an_error() -> None:
    with RawProvider(_keep_alive(1)) as provider:
        fwd = forwarder(provider.base_url)
        assert [fwd.forward("chat", ASK, {})[0] for _ in range(5)] == [200] * 5
        fwd.close()
    assert provider.connections == 5 and fwd.requests == 5


def test_a_compressed_answer_is_read_like_any_other() -> None:
    packed = gzip.compress(json.dumps(chat_body("zipped")).encode())

    def serve(conn: socket.socket, provider: RawProvider) -> None:
        while provider.read_request(conn):
            conn.sendall(response(packed, headers="Content-Type: application/json\r\nContent-Encoding: gzip\r\n"))

    with RawProvider(serve) as provider:
        status, body = forwarder(provider.base_url).forward("chat", ASK, {})
    assert status == 200 and body["choices"][0]["message"]["content"] == "zipped"
    assert "gzip" in provider.requests[0][1]["accept-encoding"]


class _Proxy(BaseHTTPRequestHandler):
    """A forward proxy that answers itself, recording the absolute URLs it was asked for."""

    protocol_version = "HTTP/1.1"
    seen: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        type(self).seen.append(self.path)
        payload = json.dumps(chat_body("via proxy")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
        pass


@pytest.mark.parametrize("bypass", [False, True])
def test_a_proxy_named_by_the_environment_is_honoured(monkeypatch: pytest.MonkeyPatch, bypass: bool) -> None:
    proxy = ThreadingHTTPServer(("127.0.0.1", 0), _Proxy)
    threading.Thread(target=proxy.serve_forever, daemon=True).start()
    _Proxy.seen = []
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.server_address[1]}")
    if bypass:
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    try:
        with ScriptedOpenAI([Reply(body=chat_body("direct"))]) as upstream:
            fwd = forwarder(upstream.base_url)
            status, body = fwd.forward("chat", ASK, {})
            fwd.close()
            url, direct = upstream.base_url + "/chat/completions", len(upstream.requests)
    finally:
        proxy.shutdown()
        proxy.server_close()
    assert status == 200
    if bypass:
        assert body["choices"][0]["message"]["content"] == "direct" and _Proxy.seen == []
    else:
        assert body["choices"][0]["message"]["content"] == "via proxy" and direct == 0 and _Proxy.seen == [url]


def test_a_compressed_answer_that_does_not_inflate_is_a_502() -> None:
    def serve(conn: socket.socket, provider: RawProvider) -> None:
        while provider.read_request(conn):
            conn.sendall(response(b"not gzip at all", headers="Content-Encoding: gzip\r\n"))

    with RawProvider(serve) as provider:
        status, body = forwarder(provider.base_url, attempts=1).forward("chat", ASK, {})
    assert status == 502 and "upstream unreachable: DecodingError" in body["error"]["message"]


@pytest.fixture
def tls_provider(tmp_path: Any) -> Any:
    """An HTTPS provider on 127.0.0.1 with a self-signed certificate for ``localhost`` (its file: `.cert`)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def serve(conn: socket.socket, provider: RawProvider) -> None:
        with context.wrap_socket(conn, server_side=True) as tls:
            while provider.read_request(tls):
                tls.sendall(response(json.dumps(chat_body("over tls")).encode()))

    with RawProvider(serve) as provider:
        provider.cert = cert  # type: ignore[attr-defined]
        yield provider


def test_tls_trusts_what_httpx_trusted(tls_provider: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    url = tls_provider.base_url.replace("http://127.0.0.1", "https://localhost")
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)
    status, body = forwarder(url, attempts=1).forward("chat", ASK, {})
    assert status == 502 and "SSLCertVerificationError" in body["error"]["message"]  # self-signed: refused
    assert tls_provider.requests == []
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_provider.cert))
    fwd = forwarder(url)
    assert [fwd.forward("chat", ASK, {})[1]["choices"][0]["message"]["content"] for _ in range(3)] == ["over tls"] * 3
    assert tls_provider.requests[0][1]["authorization"] == "Bearer sk-provider"
    assert tls_provider.connections == 2  # the refused handshake, then one kept-alive connection for 3 calls


def test_a_connection_idle_past_the_keepalive_is_closed_not_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(provider_wire, "KEEPALIVE_IDLE", 0.2)
    with RawProvider(_keep_alive(1000)) as provider:
        fwd = forwarder(provider.base_url)
        assert fwd.forward("chat", ASK, {})[0] == 200 and fwd.forward("chat", ASK, {})[0] == 200
        time.sleep(0.5)
        assert fwd.forward("chat", ASK, {})[0] == 200
        fwd.close()
    assert provider.connections == 2 and len(provider.requests) == 3
