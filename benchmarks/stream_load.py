"""Streaming model traffic at high concurrency for the gateway benchmark (`bench_gateway_streams.py`): a fake
OpenAI-compatible provider that streams SSE chunks and a load generator that does not saturate before the
thing it measures. Standard library only (asyncio and raw sockets), so both start fast in processes of their
own.

* **The provider** (`serve`): ``POST .../chat/completions``. A request with ``"stream": true`` is answered
  as Chat Completions SSE over chunked transfer encoding: ``chunks`` content chunks ``interval`` seconds
  apart (the first after one interval), a usage chunk and ``[DONE]``. A request without it (what the
  gateway sends upstream: it forwards non-streamed) is answered with the complete JSON body after the same
  ``chunks x interval`` seconds. Both paths therefore take the provider the same time. Several processes
  listen on one port (``SO_REUSEPORT``).
* **The load generator** (`drive`): processes of their own, each with its own event loop; each stream is
  one kept-alive connection that calls in a closed loop (the next call as soon as the last one ended), its
  first call at a random moment of the first call's length so arrivals are spread. Every call records the
  time to the response's first byte (its status line) and to its last byte (the end of the chunked body).
  Each process also samples its own event loop's lag every 10 ms: a load generator whose loop lags is
  measuring itself, and the benchmark prints the lag beside the figures.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import socket
import time
from typing import Any

MODEL = "bench-model"


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: dict[str, int] | None = None) -> bytes:
    body: dict[str, Any] = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                            "choices": [] if usage else [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage:
        body["usage"] = usage
    data = b"data: " + json.dumps(body).encode() + b"\n\n"
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


USAGE = {"prompt_tokens": 400, "completion_tokens": 40, "total_tokens": 440}


def _answer(chunks: int) -> bytes:
    text = "".join(f"token{i} " for i in range(chunks))
    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": MODEL,
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                    "finish_reason": "stop"}], "usage": USAGE}).encode()


async def _provider_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, chunks: int,
                               interval: float) -> None:
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    answer = _answer(chunks)
    loop = asyncio.get_running_loop()
    pieces = [_chunk({"content": f"token{i} "}) for i in range(chunks)]
    tail = _chunk({}, "stop") + _chunk({}, usage=USAGE) + _framed(b"data: [DONE]\n\n") + b"0\r\n\r\n"
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            body = await reader.readexactly(length)
            streamed = json.loads(body).get("stream") is True
            start = loop.time()  # every chunk on a schedule from the request, so both paths end together
            if streamed:
                await asyncio.sleep(start + interval - loop.time())
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                             b"\r\n" + pieces[0])
                for i, piece in enumerate(pieces[1:], 2):
                    await asyncio.sleep(start + i * interval - loop.time())
                    writer.write(piece)
                writer.write(tail)
            else:
                await asyncio.sleep(start + chunks * interval - loop.time())
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(answer)).encode() + b"\r\n\r\n" + answer)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


def _framed(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def serve(sock: socket.socket, chunks: int, interval: float) -> None:
    """Serve the fake provider on the listening socket `sock` (shared by several processes) until killed."""
    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: _provider_connection(r, w, chunks, interval), sock=sock,
                                            backlog=4096)
        await server.serve_forever()

    asyncio.run(main())


def listening_socket() -> socket.socket:
    """A TCP socket on 127.0.0.1, an ephemeral port, listening with a backlog for every stream at once."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)
    return sock


# ---------------------------------------------------------------------------------------------------
# The load generator

REQUEST = {"model": MODEL, "max_tokens": 256, "stream": True, "stream_options": {"include_usage": True},
           "messages": [{"role": "system", "content": "You are a coding agent. " * 40},
                        {"role": "user", "content": "Fix the failing test in app.py."}]}


def request_bytes(port: int, path: str, token: str) -> bytes:
    body = json.dumps(REQUEST).encode()
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, float]:
    """Read one response; (status, seconds from now to its first byte)."""
    started = time.perf_counter()
    first = await reader.readexactly(1)
    ttfb = time.perf_counter() - started
    head = first + await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    lines = head.lower().split(b"\r\n")
    length = next((int(line[15:]) for line in lines if line.startswith(b"content-length:")), None)
    if length is not None:
        await reader.readexactly(length)
    else:
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    return status, ttfb


async def _stream(side: str, port: int, path: str, token: str, spread: float, warm_until: float,
                  deadline: float, calls: int, out: list[tuple[str, float, float]], errors: list[str]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    request = request_bytes(port, path, token)
    await asyncio.sleep(random.uniform(0, spread))
    done = 0
    try:
        while done < calls and time.monotonic() < deadline:
            began = time.monotonic()
            started = time.perf_counter()
            writer.write(request)
            status, ttfb = await _read_response(reader)
            total = time.perf_counter() - started
            if status != 200:
                errors.append(f"{side}: HTTP {status}")
            elif began >= warm_until:  # every call started in the window, however long it took
                out.append((side, ttfb, total))
                done += 1
    except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
        errors.append(f"{side}: {type(exc).__name__}: {exc}")
    finally:
        writer.close()


async def _lag(until: float, lags: list[float]) -> None:
    while time.monotonic() < until:
        asked = time.perf_counter()
        await asyncio.sleep(0.01)
        lags.append(time.perf_counter() - asked - 0.01)


def drive(streams: list[tuple[str, int, str, str]], spread: float, warm: float, seconds: float, calls: int,
          queue: Any) -> None:
    """Run `streams` ((side, port, path, token) each) for `seconds` after `warm` seconds of warm-up, each at
    most `calls` measured calls; put (samples, errors, loop lags, CPU seconds) on `queue`."""
    async def main() -> tuple[list[tuple[str, float, float]], list[str], list[float]]:
        out: list[tuple[str, float, float]] = []
        errors: list[str] = []
        lags: list[float] = []
        now = time.monotonic()
        warm_until, deadline = now + warm, now + warm + seconds
        await asyncio.gather(_lag(deadline, lags), *(
            _stream(side, port, path, token, spread, warm_until, deadline, calls, out, errors)
            for side, port, path, token in streams))
        return out, errors, lags

    before = resource.getrusage(resource.RUSAGE_SELF)
    samples, errors, lags = asyncio.run(main())
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    queue.put((samples, errors[:20], lags, cpu, os.getpid()))
