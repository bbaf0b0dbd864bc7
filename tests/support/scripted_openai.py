"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for tests.

It is a real HTTP server (``http.server`` in a thread), so clients are exercised over real sockets:
status codes, Retry-After headers, delays, malformed bodies and tool calls all travel the wire.

Usage::

    with ScriptedOpenAI([reply("hello"), Reply(status=429, retry_after=0), reply("ok")]) as srv:
        client = ChatClient(LLMConfig(base_url=srv.base_url, api_key="k"))
        ...
        assert srv.requests[0]["messages"][0]["content"] == ...
        assert srv.max_in_flight <= 2

The script is either a list of `Reply` (served in order; running out answers 500 with a clear body so
a test fails loudly) or a callable ``(request_json, index) -> Reply``. Every request is recorded
(path, headers with lower-case names, parsed JSON body) and the server tracks the maximum number of
requests in flight.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer. `body` (a dict) is sent as JSON; `raw` (bytes) is sent verbatim instead."""

    status: int = 200
    body: dict[str, Any] | None = None
    raw: bytes | None = None
    delay: float = 0.0
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)


def completion(content: str | None = "", *, model: str = "scripted", tool_calls: list[dict[str, Any]] | None
               = None, prompt_tokens: int = 10, completion_tokens: int = 5,
               finish_reason: str = "stop") -> dict[str, Any]:
    """A chat.completion body with one choice."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
        finish_reason = "tool_calls"
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def reply(content: str, **kwargs: Any) -> Reply:
    """A 200 reply whose assistant message is `content`."""
    delay = kwargs.pop("delay", 0.0)
    return Reply(body=completion(content, **kwargs), delay=delay)


def bash_tool_call(command: str, call_id: str = "call_1", *, content: str = "",
                   **kwargs: Any) -> Reply:
    """A 200 reply carrying one ``bash`` tool call (the shape mini-swe-agent v2 expects)."""
    call = {"id": call_id, "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": command})}}
    return Reply(body=completion(content, tool_calls=[call], **kwargs))


Script = Sequence[Reply] | Callable[[dict[str, Any], int], Reply]


class ScriptedOpenAI:
    """The server. Start with ``with`` (or `start`/`stop`); `base_url` ends in ``/v1``."""

    def __init__(self, script: Script, *, require_key: str | None = None) -> None:
        self.script = script
        self.require_key = require_key
        """When set, every request without ``Authorization: Bearer <require_key>`` is answered 401."""
        self.requests: list[dict[str, Any]] = []
        self.gets: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------------
    def start(self) -> ScriptedOpenAI:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        server.block_on_close = False
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """JSON bodies of the chat-completions requests received, in order."""
        return [r["json"] for r in self.requests if r["path"].endswith("/chat/completions")]

    # -- serving -------------------------------------------------------------------------------------
    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            index = len(self.requests) - 1
        if callable(self.script):
            return self.script(body, index)
        if index < len(self.script):
            return self.script[index]
        return Reply(status=500, body={"error": {"message": f"script exhausted at request {index}"}})


def _make_handler(owner: ScriptedOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
            return

        def _refused(self) -> bool:
            """A 401 for a wrong or missing key when the server requires one."""
            if owner.require_key is None or self.headers.get("Authorization") == f"Bearer {owner.require_key}":
                return False
            self._send(401, json.dumps({"error": {"message": "Incorrect API key provided",
                                                  "type": "invalid_request_error"}}).encode())
            return True

        def do_GET(self) -> None:  # model listing, some clients probe it
            with owner._lock:  # kept apart from `requests`, whose length indexes the script
                owner.gets.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
            if self._refused():
                return
            self._send(200, json.dumps({"object": "list", "data": [{"id": "scripted",
                                                                    "object": "model"}]}).encode())

        def do_POST(self) -> None:
            if self._refused():
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                return
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                parsed = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                parsed = {"_unparsed": raw.decode("utf-8", "replace")}
            with owner._lock:
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.requests.append({"path": self.path, "headers": headers, "json": parsed,
                                       "received": time.time()})
                owner.in_flight += 1
                owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
            try:
                rep = owner._next_reply(parsed)
                if rep.delay:
                    time.sleep(rep.delay)
                headers = dict(rep.headers)
                if rep.retry_after is not None:
                    headers["Retry-After"] = f"{rep.retry_after:g}"
                payload = rep.raw if rep.raw is not None else json.dumps(rep.body or {}).encode()
                with owner._lock:
                    owner.in_flight -= 1
                self._send(rep.status, payload, headers)
            except BrokenPipeError:
                return
            except Exception:
                with owner._lock:
                    owner.in_flight = max(0, owner.in_flight - 1)
                raise

        def _send(self, status: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            try:
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler
