"""Threat: one row holds every connection the gateway has to the provider, so every other row's calls wait
behind it. The gateway forwarded through one HTTP client with httpx's default pool of 100 connections: an
agent that kept 100 slow calls open (a long answer each, well within its budget) made the 101st call of
any row in the run wait for a free connection -- at 500 honest rows calling at once, each call waited
seconds in the gateway before it was sent.

The provider below holds the hostile row's calls until the test releases them; while 120 of them are held
upstream, another row's call must be forwarded and answered."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from reqbench.core.llm.gateway import Gateway, MemoryRecorder, RowBudget, Upstream
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body

HELD = 120


def post(gw: Gateway, token: str, text: str, timeout: float) -> httpx.Response:
    return httpx.post(gw.base_url + "/chat/completions", headers={"Authorization": f"Bearer {token}"},
                      json={"model": "scripted", "messages": [{"role": "user", "content": text}]}, timeout=timeout)


def test_a_row_holding_many_slow_calls_does_not_delay_another_rows_call() -> None:
    release = threading.Event()

    def answer(body: dict[str, Any], index: int) -> Reply:
        if body["messages"][0]["content"] == "hold":
            release.wait(60)
        return Reply(body=chat_body("ok"))

    with ScriptedOpenAI(answer) as upstream, Gateway(Upstream(upstream.base_url, "k"),
                                                    recorder=MemoryRecorder()) as gw, \
            ThreadPoolExecutor(HELD) as pool:
        hostile = gw.open_row("hostile", RowBudget(max_calls=1000))
        honest = gw.open_row("honest", RowBudget(max_calls=10))
        try:
            held = [pool.submit(post, gw, hostile.token, "hold", 90) for _ in range(HELD)]
            deadline = time.monotonic() + 30
            while upstream.in_flight < 100 and time.monotonic() < deadline:  # the old pool's whole size
                time.sleep(0.05)
            assert upstream.in_flight >= 100
            answered = post(gw, honest.token, "fix the bug", 15)  # the old gateway: a timeout here
            assert answered.status_code == 200 and not release.is_set()
            assert [r["messages"][0]["content"] for r in upstream.chat_requests].count("fix the bug") == 1
        finally:
            release.set()
        assert all(f.result().status_code == 200 for f in held)
