"""The model gateway against a scripted upstream on loopback: three APIs x streaming x tool calls,
credentials, budgets, recording in the run store, and offline replay with zero upstream requests."""

from __future__ import annotations

import io
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from reqbench.core.llm.gateway import Gateway, MemoryRecorder, RowBudget, StoreRecorder, Upstream
from reqbench.core.llm.pricing import Price
from reqbench.core.store import RunMeta, RunStore, utc_now
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import assemble, chat_body, messages_body, read_sse, responses_body

KEY = "sk-provider-SECRET-123"
PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}
BODIES = {"chat": chat_body, "responses": responses_body, "messages": messages_body}
EDIT = ("write_file", {"path": "app.py", "content": "print('fixed')\n"})


def request(api: str, *, stream: bool = False, text: str = "fix the bug") -> dict[str, Any]:
    if api == "responses":
        body: dict[str, Any] = {"model": "scripted", "input": [{"role": "user", "content": text}]}
    else:
        body = {"model": "scripted", "messages": [{"role": "user", "content": text}], "max_tokens": 100}
    if stream:
        body["stream"] = True
        if api == "chat":
            body["stream_options"] = {"include_usage": True}
    return body


def call(gw: Gateway, api: str, token: str, body: dict[str, Any]) -> httpx.Response:
    headers = {"x-api-key": token, "anthropic-version": "2023-06-01"} if api == "messages" \
        else {"Authorization": f"Bearer {token}"}
    return httpx.post(gw.base_url.removesuffix("/v1") + PATHS[api], json=body, headers=headers, timeout=10)


def answer(api: str, resp: httpx.Response, stream: bool) -> dict[str, Any]:
    assert resp.status_code == 200, resp.text
    if stream:
        assert resp.headers["content-type"].startswith("text/event-stream")
        return assemble(api, read_sse(resp.text))
    data = resp.json()
    if api == "chat":
        msg = data["choices"][0]["message"]
        tools = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in msg.get("tool_calls") or []]
        return {"text": msg["content"] or "", "tools": tools}
    if api == "responses":
        text = "".join(p["text"] for o in data["output"] if o["type"] == "message" for p in o["content"])
        tools = [(o["name"], json.loads(o["arguments"])) for o in data["output"] if o["type"] == "function_call"]
        return {"text": text, "tools": tools}
    text = "".join(b["text"] for b in data["content"] if b["type"] == "text")
    return {"text": text, "tools": [(b["name"], b["input"]) for b in data["content"] if b["type"] == "tool_use"]}


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("tool", [False, True])
def test_each_api_round_trips_and_is_recorded(api: str, stream: bool, tool: bool) -> None:
    body = BODIES[api]("I will edit app.py", tool=EDIT if tool else None)
    with ScriptedOpenAI([Reply(body=body)]) as upstream, \
            Gateway(Upstream(upstream.base_url, KEY), recorder=(rec := MemoryRecorder())) as gw:
        lease = gw.open_row("task|C1|agent|0")
        resp = call(gw, api, lease.token, request(api, stream=stream))
        got = answer(api, resp, stream)
        assert got["text"] == "I will edit app.py"
        assert got["tools"] == ([EDIT] if tool else [])
        assert KEY not in resp.text and all(KEY not in v for v in resp.headers.values())
        sent = upstream.requests[0]
        assert sent["path"] == PATHS[api] and "stream" not in sent["json"]
        assert (sent["headers"].get("x-api-key") if api == "messages"
                else sent["headers"]["authorization"]) == (KEY if api == "messages" else f"Bearer {KEY}")
    [recorded] = rec.calls("task|C1|agent|0")
    assert (recorded.api, recorded.step, recorded.source, recorded.status) == (api, 1, "upstream", 200)
    assert (recorded.prompt_tokens, recorded.completion_tokens, recorded.cost_usd) == (10, 5, 0.0)
    assert lease.usage()["calls"] == 1 and lease.usage()["prompt_tokens"] == 10


def test_unknown_token_is_refused_and_provider_key_never_accepted() -> None:
    with ScriptedOpenAI([Reply(body=chat_body("x"))]) as upstream, Gateway(Upstream(upstream.base_url, KEY)) as gw:
        gw.open_row("r")
        for token in ("none", "guess", KEY):
            resp = call(gw, "chat", token, request("chat"))
            assert resp.status_code == 401 and KEY not in resp.text
        assert upstream.requests == []


def test_legacy_completions_are_not_served() -> None:
    """``/v1/completions`` (whose ``n`` and ``best_of`` multiply a call's output) is no route of the gateway."""
    with ScriptedOpenAI([Reply(body=chat_body("x"))]) as upstream, Gateway(Upstream(upstream.base_url, KEY)) as gw:
        lease = gw.open_row("r")
        legacy = httpx.post(gw.base_url + "/completions", headers={"Authorization": f"Bearer {lease.token}"},
                            json={"model": "m", "prompt": "x", "n": 128, "best_of": 128}, timeout=30)
        assert legacy.status_code == 404 and upstream.requests == []


def test_unix_socket_answers_like_tcp() -> None:
    with ScriptedOpenAI([Reply(body=messages_body("hi"))]) as upstream, \
            Gateway(Upstream(upstream.base_url, KEY)) as gw:
        lease = gw.open_row("r")
        transport = httpx.HTTPTransport(uds=str(gw.socket_path))
        with httpx.Client(transport=transport) as client:
            resp = client.post("http://gateway/v1/messages", json=request("messages", stream=True),
                               headers={"x-api-key": lease.token})
        assert assemble("messages", read_sse(resp.text))["text"] == "hi"


@pytest.mark.parametrize(("budget", "reason"), [(RowBudget(max_calls=2), "2 of 2 model calls"),
                                                (RowBudget(max_tokens=30), "30 of 30 tokens"),
                                                (RowBudget(max_cost_usd=0.02), "of $0.02 used")])
def test_budget_exhausted_is_an_error_the_agent_sees(budget: RowBudget, reason: str) -> None:
    prices = {"scripted": Price(input_per_1m=1000.0, output_per_1m=0.0)}  # $0.01 per call of 10 tokens
    with ScriptedOpenAI(lambda body, i: Reply(body=messages_body("ok", input_tokens=10, output_tokens=5))) \
            as upstream, Gateway(Upstream(upstream.base_url, KEY), prices=prices) as gw:
        lease = gw.open_row("r", budget)
        statuses = [call(gw, "messages", lease.token, request("messages")) for _ in range(3)]
        assert [r.status_code for r in statuses] == [200, 200, 400]
        error = statuses[2].json()["error"]
        assert "budget exhausted" in error["message"] and reason in error["message"]
        assert len(upstream.requests) == 2
    usage = lease.usage()
    assert usage["budget_exhausted"] is not None and usage["budget_exhausted"].startswith("budget exhausted")
    assert usage["calls"] == 2 and usage["refused"] == 1


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_offline_replay_sends_nothing_and_re_streams(api: str, tmp_path: Path) -> None:
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    store = RunStore.create(tmp_path / "run", meta)
    recorder = StoreRecorder.for_store(store)
    script = [Reply(body=BODIES[api]("step one", tool=EDIT)), Reply(body=BODIES[api]("done"))]
    with ScriptedOpenAI(script) as upstream:
        with Gateway(Upstream(upstream.base_url, KEY), recorder=recorder) as gw:
            lease = gw.open_row("row")
            live = [answer(api, call(gw, api, lease.token, request(api, text=t)), False) for t in ("a", "b")]
        with Gateway(Upstream(upstream.base_url, KEY), recorder=recorder, offline=True) as gw:
            lease = gw.open_row("row")
            # streamed this time, and the request text changed (a new working directory, a date...)
            replayed = [answer(api, call(gw, api, lease.token, request(api, text=t, stream=True)), True)
                        for t in ("a2", "b2")]
            miss = call(gw, api, lease.token, request(api, text="c"))
        assert len(upstream.requests) == 2 and gw.upstream_requests == 0
    assert [(r["text"], r["tools"]) for r in replayed] == [(r["text"], r["tools"]) for r in live]
    assert miss.status_code == 400 and "offline" in miss.text and lease.usage()["offline_misses"] == 1
    sources = [c.source for c in recorder.calls("row")]
    assert sources == ["upstream", "upstream", "replay", "replay", "refused"]
    assert lease.usage()["prompt_tokens"] == 20


def test_store_upgrade_adds_the_model_calls_table(tmp_path: Path) -> None:
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    RunStore.create(tmp_path / "run", meta).close()
    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    conn.execute("DROP TABLE model_calls")  # back to a version-2 store: no gateway calls, no reasons
    for column in ("reason", "parent_attempt", "grading"):
        conn.execute(f"ALTER TABLE attempts DROP COLUMN {column}")
    conn.execute("DROP TABLE gradings")
    conn.execute("ALTER TABLE cache DROP COLUMN packed")
    conn.execute("ALTER TABLE judge_calls DROP COLUMN packed")
    conn.execute("DROP TABLE blobs")
    conn.execute("DROP TABLE blob_lists")
    conn.execute("PRAGMA user_version=2")
    conn.commit()
    conn.close()
    RunStore.open(tmp_path / "run").close()
    conn = sqlite3.connect(tmp_path / "run" / "run.sqlite")
    assert conn.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0] == 0


def test_a_chunked_body_under_the_cap_is_read_like_any_other() -> None:
    payload = json.dumps(request("chat", text="chunked " * 5000)).encode()

    def pieces() -> Any:
        for i in range(0, len(payload), 4096):
            yield payload[i:i + 4096]

    with ScriptedOpenAI([Reply(body=chat_body("ok"))]) as upstream, Gateway(Upstream(upstream.base_url, KEY)) as gw:
        lease = gw.open_row("r")
        resp = httpx.post(gw.base_url + "/chat/completions", content=pieces(), timeout=10,
                          headers={"Authorization": f"Bearer {lease.token}", "Content-Type": "application/json"})
        assert resp.status_code == 200, resp.text
        assert upstream.requests[0]["json"]["messages"][0]["content"] == "chunked " * 5000


@pytest.mark.parametrize("raw", [b"zz\r\n", b"5\r\nab", b"-1\r\n"])
def test_a_broken_chunked_body_is_a_bad_request(raw: bytes) -> None:
    from reqbench.core.llm.gateway.limits import BadBody, read_body

    with pytest.raises(BadBody):
        read_body(io.BytesIO(raw), {"transfer-encoding": "chunked"}, 1024)


def test_a_call_waiting_on_reservations_in_flight_goes_once_they_settle() -> None:
    """Budget reservation: a call that fits the settled use but not the reservations in flight waits for
    them instead of failing, so a row is never refused while its budget is not used up."""
    from reqbench.core.llm.gateway.leases import Claim, Lease

    lease = Lease("r", RowBudget(max_calls=2))
    first = Claim()
    assert lease.admit(first) is None and lease.admit(Claim()) is None  # two in flight: the limit
    result: list[str | None] = []
    waiter = threading.Thread(target=lambda: result.append(lease.admit(Claim())))
    waiter.start()
    lease.settle(first, None)  # the first call failed upstream: nothing spent, its place is free again
    waiter.join(timeout=30)
    assert result == [None] and lease.calls == 0 and len(lease.in_flight) == 2


def test_a_tool_schema_with_a_property_named_type_is_answered() -> None:
    """A function tool whose parameters declare a property called ``type`` (a JSON-schema object, as Claude
    Code's tools do) is an ordinary request: it is forwarded and answered, never a dropped connection."""
    body = request("messages")
    body["tools"] = [{"name": "pick", "input_schema": {"type": "object", "properties": {
        "type": {"type": "string", "enum": ["a", "b"]}}}}]
    with ScriptedOpenAI(lambda b, i: Reply(body=messages_body("ok"))) as upstream, \
            Gateway(Upstream(upstream.base_url, "k")) as gw:
        lease = gw.open_row("row")
        assert answer("messages", call(gw, "messages", lease.token, body), False)["text"] == "ok"
