"""The gateway's HTTP side: one request from a (hostile) agent, read in an order that bounds what it costs.

1. the path is routed and the presented token matched to a lease -- **before any byte of the body is
   read**: an unknown token gets 401 and the connection is closed with the body unread;
2. the body is read under the gateway's cap (`limits.read_body`: by ``Content-Length``, or chunk by chunk);
   over it, HTTP 413 -- the call is recorded as a digest, the row marked ``resource_limit`` -- and the
   connection is closed after a short linger that lets the client read the answer;
3. a body with more JSON values than `limits.GatewayLimits.max_json_items` is refused the same way, before
   it is parsed;
4. the JSON object goes to `Gateway.handle`; the answer is sent as JSON, or as SSE when the agent asked for
   a stream.

Count-tokens probes (``/v1/messages/count_tokens``) are answered locally with an estimate. The HTTP
framing -- request line, headers, keep-alive, answers written in one send -- is `http1.LeanHandler`'s.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from reqbench.core.llm.gateway import apis, sse
from reqbench.core.llm.gateway.http1 import LeanHandler
from reqbench.core.llm.gateway.limits import BadBody, BodyTooLarge, json_items, read_body

if TYPE_CHECKING:
    from reqbench.core.llm.gateway.server import Gateway

SOCKET_TIMEOUT = 120.0
"""Seconds a client may stall while sending a request (a silent connection then closes)."""
STREAM_HEADERS = [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"),
                  ("Transfer-Encoding", "chunked")]
LINGER_SECONDS = 2.0
"""After refusing an unread body: how long its rest is read and dropped, so the client sees the answer."""


def make_handler(gateway: Gateway) -> type[LeanHandler]:
    class Handler(LeanHandler):
        timeout = SOCKET_TIMEOUT

        def do_GET(self) -> None:
            if self.path.split("?")[0].rstrip("/") in ("/v1/models", "/models"):
                self._json(200, {"object": "list", "data": []})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_HEAD(self) -> None:
            self._json(200, {})

        def do_POST(self) -> None:
            headers = self.headers
            path = self.path.split("?", 1)[0].rstrip("/")
            api = apis.route(path)
            shape = api or "chat"
            lease = gateway.lease_for(apis.presented_token(headers))
            if lease is None:
                self.close_connection = True  # the body stays unread
                self._json(401, apis.error_body(shape, "reqbench gateway: unknown token", "authentication_error"))
                return
            cap = gateway.limits.max_body
            try:
                raw = read_body(self.rfile, headers, cap)
            except BodyTooLarge as exc:
                self.close_connection = True
                self._json(*gateway.refuse_request(shape, lease, exc.head, exc.size, str(exc), status=413))
                self._linger()
                return
            except BadBody as exc:
                self.close_connection = True
                self._json(400, apis.error_body(shape, f"reqbench gateway: {exc}", "bad_request"))
                return
            except OSError:  # the client stalled past the socket timeout or went away
                self.close_connection = True
                return
            if json_items(raw) > gateway.limits.max_json_items:
                self._json(*gateway.refuse_request(shape, lease, raw, len(raw), f"request body holds more than "
                                                   f"{gateway.limits.max_json_items} JSON values", status=413))
                return
            try:
                body = json.loads(raw or b"{}")
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                body = None
            if not isinstance(body, dict):
                self._json(400, apis.error_body(shape, "request body is not a JSON object", "bad_request"))
                return
            if path.endswith("/count_tokens"):
                self._json(200, {"input_tokens": max(1, len(raw) // 4)})
                return
            if api is None:
                self._json(404, apis.error_body("chat", f"reqbench gateway: no route {path}", "not_found"))
                return
            status, response = gateway.handle(api, lease, body, headers, raw)
            if status == 200 and body.get("stream"):
                self._stream(sse.stream(api, response, body))
            else:
                self._json(status, response)

        def _json(self, status: int, body: dict[str, Any]) -> None:
            payload = json.dumps(body).encode()
            headers = [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))]
            if self.close_connection:
                headers.append(("Connection", "close"))
            self.send(status, headers, payload)

        def _linger(self) -> None:
            """Read and drop what the client still sends for up to `LINGER_SECONDS` (never kept), so its
            kernel does not reset the connection before it has read the answer."""
            deadline = time.monotonic() + LINGER_SECONDS
            try:
                self.connection.shutdown(socket.SHUT_WR)
                while (left := deadline - time.monotonic()) > 0:
                    self.connection.settimeout(left)
                    if not self.connection.recv(1 << 16):
                        break
            except OSError:
                pass

        def _stream(self, chunks: Iterator[bytes]) -> None:
            framed = b"".join(b"%x\r\n%b\r\n" % (len(chunk), chunk) for chunk in chunks)
            # every event is at hand (the answer is complete): one write, not a system call per event
            self.send(200, STREAM_HEADERS, framed + b"0\r\n\r\n")

    return Handler
