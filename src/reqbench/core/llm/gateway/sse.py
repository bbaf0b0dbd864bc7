"""Server-sent event streams synthesised from one complete response, in each API's real event format.

The gateway records complete responses only; an agent that asked for ``stream: true`` gets the same
content as the event sequence its SDK expects (live and replayed calls alike):

* ``chat`` -- ``chat.completion.chunk`` objects: the role, the text, each tool call (id and name, then
  its arguments), the finish reason, a usage chunk when ``stream_options.include_usage``, ``[DONE]``;
* ``responses`` -- ``response.created``, ``response.in_progress``, per output item
  ``response.output_item.added`` / text parts (``response.content_part.added``,
  ``response.output_text.delta``/``.done``, ``response.content_part.done``) or function-call arguments
  (``response.function_call_arguments.delta``/``.done``) / ``response.output_item.done``, then
  ``response.completed`` with the full response; every event numbered (``sequence_number``);
* ``messages`` -- ``message_start``, per content block ``content_block_start`` / ``_delta``
  (``text_delta``, ``input_json_delta``, ``thinking_delta`` + ``signature_delta``) / ``_stop``, then
  ``message_delta`` (stop reason, output tokens) and ``message_stop``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(data, ensure_ascii=False)`` without building an encoder per event."""


def _event(name: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else _ENCODE(data)
    return (f"event: {name}\ndata: {payload}\n\n" if name else f"data: {payload}\n\n").encode()


def stream(api: str, response: dict[str, Any], request: dict[str, Any]) -> Iterator[bytes]:
    """The SSE byte chunks of `response` for an agent speaking `api`."""
    if api == "chat":
        return _chat(response, request)
    if api == "responses":
        return _responses(response)
    return _messages(response)


def _chat(resp: dict[str, Any], request: dict[str, Any]) -> Iterator[bytes]:
    base = {"id": resp.get("id", "chatcmpl-gateway"), "object": "chat.completion.chunk",
            "created": resp.get("created", 0), "model": resp.get("model", "")}
    choices = resp.get("choices") or [{"index": 0, "message": {"role": "assistant", "content": ""},
                                       "finish_reason": "stop"}]

    def chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _event(None, {**base, "choices": [{"index": index, "delta": delta, "logprobs": None,
                                                   "finish_reason": finish}]})

    for choice in choices:
        index = int(choice.get("index", 0))
        message = choice.get("message") or {}
        yield chunk(index, {"role": "assistant", "content": ""})
        if message.get("reasoning_content"):
            yield chunk(index, {"reasoning_content": message["reasoning_content"]})
        if message.get("content"):
            yield chunk(index, {"content": message["content"]})
        for i, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            yield chunk(index, {"tool_calls": [{"index": i, "id": call.get("id"), "type": "function",
                                                "function": {"name": function.get("name"), "arguments": ""}}]})
            yield chunk(index, {"tool_calls": [{"index": i,
                                                "function": {"arguments": function.get("arguments", "")}}]})
        yield chunk(index, {}, choice.get("finish_reason") or "stop")
    if (request.get("stream_options") or {}).get("include_usage") and resp.get("usage"):
        yield _event(None, {**base, "choices": [], "usage": resp["usage"]})
    yield _event(None, "[DONE]")


def _responses(resp: dict[str, Any]) -> Iterator[bytes]:
    seq = 0

    def ev(name: str, **fields: Any) -> bytes:
        nonlocal seq
        seq += 1
        return _event(name, {"type": name, "sequence_number": seq - 1, **fields})

    pending = {**copy.deepcopy(resp), "status": "in_progress", "output": []}
    pending.pop("usage", None)
    yield ev("response.created", response=pending)
    yield ev("response.in_progress", response=pending)
    for out_index, item in enumerate(resp.get("output") or []):
        item_id = item.get("id", f"item_{out_index}")
        kind = item.get("type")
        if kind == "message":
            yield ev("response.output_item.added", output_index=out_index,
                     item={**item, "content": [], "status": "in_progress"})
            for c_index, part in enumerate(item.get("content") or []):
                where = {"item_id": item_id, "output_index": out_index, "content_index": c_index}
                if part.get("type") == "output_text":
                    yield ev("response.content_part.added", **where,
                             part={**part, "text": "", "annotations": []})
                    yield ev("response.output_text.delta", **where, delta=part.get("text", ""), logprobs=[])
                    yield ev("response.output_text.done", **where, text=part.get("text", ""), logprobs=[])
                else:
                    yield ev("response.content_part.added", **where, part=part)
                yield ev("response.content_part.done", **where, part=part)
        elif kind == "function_call":
            yield ev("response.output_item.added", output_index=out_index,
                     item={**item, "arguments": "", "status": "in_progress"})
            where = {"item_id": item_id, "output_index": out_index}
            yield ev("response.function_call_arguments.delta", **where, delta=item.get("arguments", ""))
            yield ev("response.function_call_arguments.done", **where, arguments=item.get("arguments", ""))
        else:
            yield ev("response.output_item.added", output_index=out_index, item=item)
        yield ev("response.output_item.done", output_index=out_index, item=item)
    final = resp.get("status") or "completed"
    name = {"failed": "response.failed", "incomplete": "response.incomplete"}.get(final, "response.completed")
    yield ev(name, response={**resp, "status": final})


def _messages(resp: dict[str, Any]) -> Iterator[bytes]:
    usage = dict(resp.get("usage") or {})
    start = {**{k: v for k, v in resp.items() if k != "content"}, "content": [], "stop_reason": None,
             "stop_sequence": None, "usage": {**usage, "output_tokens": min(1, int(usage.get("output_tokens")
                                                                                 or 0))}}
    yield _event("message_start", {"type": "message_start", "message": start})
    yield _event("ping", {"type": "ping"})
    for index, block in enumerate(resp.get("content") or []):
        kind = block.get("type")

        def delta(d: dict[str, Any], i: int = index) -> bytes:
            return _event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})

        if kind == "text":
            opening: dict[str, Any] = {**block, "text": ""}
            deltas = [delta({"type": "text_delta", "text": block.get("text", "")})]
        elif kind in ("tool_use", "server_tool_use"):
            opening = {**block, "input": {}}
            deltas = [delta({"type": "input_json_delta",
                             "partial_json": _ENCODE(block.get("input", {}))})]
        elif kind == "thinking":
            opening = {**block, "thinking": "", "signature": ""}
            deltas = [delta({"type": "thinking_delta", "thinking": block.get("thinking", "")}),
                      delta({"type": "signature_delta", "signature": block.get("signature", "")})]
        else:
            opening, deltas = block, []
        yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                             "content_block": opening})
        yield from deltas
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    yield _event("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": resp.get("stop_reason"),
                                             "stop_sequence": resp.get("stop_sequence")},
                                   "usage": {"output_tokens": int(usage.get("output_tokens") or 0)}})
    yield _event("message_stop", {"type": "message_stop"})
