"""Response bodies of the three model APIs and client-side SSE reassembly, for gateway tests.

`chat_body` / `responses_body` / `messages_body` build complete responses (served by `ScriptedOpenAI`,
which answers any path). `read_sse` splits a stream into (event, data) pairs and `assemble` rebuilds
what an SDK would accumulate from them (text and tool calls), so tests check streams end to end.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.scripted_openai import completion


def chat_body(text: str = "", *, tool: tuple[str, dict[str, Any]] | None = None, prompt_tokens: int = 10,
              completion_tokens: int = 5, model: str = "scripted") -> dict[str, Any]:
    calls = None
    if tool is not None:
        calls = [{"id": "call_1", "type": "function",
                  "function": {"name": tool[0], "arguments": json.dumps(tool[1])}}]
    return completion(text, tool_calls=calls, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      model=model)


def responses_body(text: str = "", *, tool: tuple[str, dict[str, Any]] | None = None, input_tokens: int = 10,
                   output_tokens: int = 5, model: str = "scripted", call_id: str = "call_1") -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if text:
        output.append({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    if tool is not None:
        output.append({"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": tool[0],
                       "arguments": json.dumps(tool[1]), "status": "completed"})
    return {"id": "resp_1", "object": "response", "created_at": 0, "status": "completed", "model": model,
            "output": output, "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens,
                                        "total_tokens": input_tokens + output_tokens}}


def messages_body(text: str = "", *, tool: tuple[str, dict[str, Any]] | None = None, input_tokens: int = 10,
                  output_tokens: int = 5, model: str = "scripted", tool_id: str = "toolu_1") -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    if tool is not None:
        content.append({"type": "tool_use", "id": tool_id, "name": tool[0], "input": tool[1]})
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": "tool_use" if tool else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def read_sse(raw: str) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for block in raw.split("\n\n"):
        if not block.strip():
            continue
        event, data = None, ""
        for line in block.splitlines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data += line[6:]
        out.append((event, data if data == "[DONE]" else json.loads(data)))
    return out


def assemble(api: str, events: list[tuple[str | None, Any]]) -> dict[str, Any]:
    """{"text", "tools": [(name, arguments dict)], "usage"} as an SDK would accumulate them."""
    text, tools, usage = "", [], None
    if api == "chat":
        assert events[-1][1] == "[DONE]"
        args: dict[int, list[str]] = {}
        for _, data in events[:-1]:
            usage = data.get("usage") or usage
            for choice in data["choices"]:
                delta = choice["delta"]
                text += delta.get("content") or ""
                for call in delta.get("tool_calls") or []:
                    if call.get("id"):
                        args[call["index"]] = [call["function"]["name"], ""]
                    args[call["index"]][1] += call["function"].get("arguments", "")
        tools = [(name, json.loads(a)) for name, a in args.values()]
    elif api == "responses":
        assert [d["sequence_number"] for _, d in events] == list(range(len(events)))
        assert events[-1][0] == "response.completed"
        for name, data in events:
            assert data["type"] == name
            if name == "response.output_text.delta":
                text += data["delta"]
            if name == "response.output_item.done" and data["item"]["type"] == "function_call":
                tools.append((data["item"]["name"], json.loads(data["item"]["arguments"])))
        usage = events[-1][1]["response"]["usage"]
    else:
        assert events[0][0] == "message_start" and events[-1][0] == "message_stop"
        blocks: dict[int, dict[str, Any]] = {}
        for name, data in events:
            assert data["type"] == name
            if name == "content_block_start":
                blocks[data["index"]] = {**data["content_block"], "_json": ""}
            elif name == "content_block_delta":
                d = data["delta"]
                if d["type"] == "text_delta":
                    text += d["text"]
                elif d["type"] == "input_json_delta":
                    blocks[data["index"]]["_json"] += d["partial_json"]
            elif name == "message_delta":
                usage = data["usage"]
        tools = [(b["name"], json.loads(b["_json"])) for b in blocks.values() if b["type"] == "tool_use"]
    return {"text": text, "tools": tools, "usage": usage}
