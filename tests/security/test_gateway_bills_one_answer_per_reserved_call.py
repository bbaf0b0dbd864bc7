"""Threat: an agent has one call billed far beyond what the gateway reserved for it. The reservation holds one
answer of the request's output cap, so ``n=128, max_tokens=4000`` under a $0.01 budget was forwarded as one
call and billed 128 choices ($0.31 for gpt-4o-mini: 31x the budget); ``best_of`` does the same on upstreams
that accept it, ``background: true`` has the provider bill after the gateway's answer (which carries no usage,
so the row is charged nothing), ``service_tier: priority`` bills above the price table, and a cap written as
``"100000"`` was read as no cap at all (32,768 reserved while the provider allows 100,000).

Each such request is refused with an error body naming the field before it is reserved or forwarded -- the
loopback provider below counts what it received -- and a cap is read as leniently as a provider reads it."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from reqbench.core.llm.gateway import Gateway, MemoryRecorder, RowBudget, Upstream
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body, responses_body

MODEL = "gpt-4o-mini"  # $0.15 / $0.60 per 1M tokens in the built-in table
ASK = {"model": MODEL, "messages": [{"role": "user", "content": "write"}]}


def post(gw: Gateway, token: str, path: str, payload: dict[str, Any]) -> httpx.Response:
    return httpx.post(gw.base_url + path, json=payload, headers={"Authorization": f"Bearer {token}"}, timeout=60)


def provider() -> ScriptedOpenAI:
    """Answers every choice it was asked for, as a provider bills them."""
    def answer(body: dict[str, Any], index: int) -> Reply:
        return Reply(body=chat_body("ok", prompt_tokens=20, completion_tokens=4000 * int(body.get("n") or 1),
                                    model=MODEL))
    return ScriptedOpenAI(answer)


@pytest.mark.parametrize(("path", "extra", "field"), [
    ("/chat/completions", {"n": 128, "max_tokens": 4000}, "'n' = 128"),
    ("/chat/completions", {"n": "128", "max_tokens": 4000}, "'n' = '128'"),
    ("/chat/completions", {"n": 128.0, "max_completion_tokens": 4000}, "'n' = 128.0"),
    ("/chat/completions", {"best_of": 8, "max_tokens": 4000}, "'best_of' = 8"),
    ("/chat/completions", {"service_tier": "priority"}, "'service_tier' = 'priority'"),
    ("/responses", {"background": True, "max_output_tokens": 4000}, "'background' = true"),
])
def test_a_call_billed_beyond_its_reservation_never_reaches_the_provider(path: str, extra: dict[str, Any],
                                                                         field: str) -> None:
    with provider() as upstream, Gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder()) as gw:
        lease = gw.open_row("row", RowBudget(max_cost_usd=0.01))
        payload = {**ASK, **extra} if path == "/chat/completions" else {"model": MODEL, "input": "write", **extra}
        refused = post(gw, lease.token, path, payload)
        assert len(upstream.requests) == 0  # nothing was forwarded, nothing billed
        one = post(gw, lease.token, "/chat/completions", {**ASK, "n": 1, "max_tokens": 4000})
        assert len(upstream.requests) == 1 and one.status_code == 200  # one answer per call still passes
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "parameter_not_allowed" and field in error["message"], error
    usage = lease.usage()
    assert usage["refused"] == 1 and usage["cost_usd"] == pytest.approx((20 * 0.15 + 4000 * 0.6) / 1e6)


def test_an_output_cap_written_as_text_is_reserved_in_full() -> None:
    """A 100,000-token budget; two calls at once, each with ``max_output_tokens: "100000"``. Read as 100,000, the
    first call's reservation fills the budget, so the second waits until the first has settled; read as no cap
    (32,768) both were in flight together -- 200,000 tokens allowed under a 100,000 budget."""
    start = threading.Barrier(2)

    def slow(body: dict[str, Any], index: int) -> Reply:
        return Reply(body=responses_body("ok", input_tokens=10, output_tokens=10, model=MODEL), delay=0.5)

    with ScriptedOpenAI(slow) as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder()) as gw:
        lease = gw.open_row("row", RowBudget(max_tokens=100_000))
        answers: list[int] = []

        def one() -> None:
            start.wait()
            answers.append(post(gw, lease.token, "/responses", {"model": MODEL, "input": "x",
                                                                 "max_output_tokens": "100000"}).status_code)

        threads = [threading.Thread(target=one) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert answers == [200, 200] and upstream.max_in_flight == 1
