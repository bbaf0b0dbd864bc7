"""Threat: an agent fills the run directory with calls that are never answered. The gateway kept a digest of the
calls it refused itself, but the provider's refusals (4xx), its failures (5xx, after retries) and an upstream it
could not reach were recorded with the whole request -- and the provider's whole answer, which may echo the
request back: 20 calls of 24 MiB that the provider refused grew the run directory to 481 MiB. The built-in
``llm`` agent's client recorded its failed calls whole too.

A call that was not answered keeps its size, SHA-256 and first KiB, and the provider's answer only while it is
a small error body; so 20 refused calls of 4 MiB (80 MiB sent) leave the run directory under 5 MiB."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from reqbench.core.errors import ReqbenchError
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.gateway import Gateway, StoreRecorder, Upstream
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.active import activate
from tests.support.scripted_openai import Reply, ScriptedOpenAI

MiB = 1024**2
CALLS = 20
BIG = "x" * (4 * MiB)


def run_store(run_dir: Path) -> RunStore:
    return RunStore.create(run_dir, RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(),
                                            reqbench_version="0"))


def dir_bytes(run_dir: Path) -> int:
    return sum(p.stat().st_size for p in run_dir.rglob("*") if p.is_file())


def refusing(body: dict[str, Any], index: int) -> Reply:
    """Refuses every call; one in three as a server error, one in three echoing the whole request back."""
    if index % 3 == 0:
        return Reply(status=500, body={"error": {"message": "overloaded"}})
    echo = {"request": body} if index % 3 == 1 else {}
    return Reply(status=400, body={"error": {"message": "request too large", "type": "invalid_request_error",
                                             **echo}})


def test_calls_the_provider_refused_keep_a_digest_not_their_body(tmp_path: Path) -> None:
    store = run_store(tmp_path / "run")
    empty = dir_bytes(tmp_path / "run")
    sent = json.dumps({"model": "scripted", "messages": [{"role": "user", "content": BIG}]}).encode()
    headers = {"Content-Type": "application/json"}
    with ScriptedOpenAI(refusing) as upstream, Gateway(Upstream(upstream.base_url, "k", attempts=1, backoff=0),
                                                       recorder=StoreRecorder.for_store(store)) as gw:
        lease = gw.open_row("row")
        statuses = {httpx.post(gw.base_url + "/chat/completions", content=sent, timeout=60,
                               headers={**headers, "Authorization": f"Bearer {lease.token}"}).status_code
                    for _ in range(CALLS)}
        assert len(upstream.requests) == CALLS  # every call was forwarded, and refused by the provider
    with Gateway(Upstream("http://127.0.0.1:9/v1", "k", attempts=1, backoff=0),
                 recorder=StoreRecorder.for_store(store)) as gw:  # nothing listens there: HTTP 502
        lost = gw.open_row("row-2")
        unreachable = httpx.post(gw.base_url + "/chat/completions", content=sent, timeout=60,
                                 headers={**headers, "Authorization": f"Bearer {lost.token}"}).status_code
    store.close()
    assert statuses == {400, 500} and unreachable == 502
    grown = dir_bytes(tmp_path / "run") - empty
    assert grown < 5 * MiB, f"the run directory grew by {grown / MiB:.1f} MiB for {CALLS} refused calls"

    calls = StoreRecorder(tmp_path / "run" / "run.sqlite").calls()
    assert len(calls) == CALLS + 1 and all(c.source == "refused" for c in calls)
    for call in calls:
        digest = call.request["reqbench_refused_request"]
        assert digest["bytes"] == len(sent) and digest["sha256"] == hashlib.sha256(sent).hexdigest()
        assert len(json.dumps(call.request)) < 2048 and len(json.dumps(call.response)) <= 4096 + 2048
    assert calls[1].response["reqbench_failed_answer"]["bytes"] > 4 * MiB  # the echo: a digest of it
    assert calls[2].response["error"]["message"] == "request too large"  # a small error body: kept whole


def test_the_llm_agents_failed_calls_keep_a_digest_not_their_body(tmp_path: Path) -> None:
    store = run_store(tmp_path / "run")
    empty = dir_bytes(tmp_path / "run")
    with ScriptedOpenAI(refusing) as upstream, activate(store):
        client = ChatClient(LLMConfig(base_url=upstream.base_url, api_key="k", attempts=1, cache=None))
        for i in range(CALLS):
            with pytest.raises(ReqbenchError):
                client.complete([{"role": "user", "content": BIG + str(i)}], model="scripted")
        assert len(upstream.requests) == CALLS
    store.close()
    grown = dir_bytes(tmp_path / "run") - empty
    assert grown < 5 * MiB, f"the run directory grew by {grown / MiB:.1f} MiB for {CALLS} failed calls"
    calls = StoreRecorder(tmp_path / "run" / "run.sqlite").calls()
    assert len(calls) == CALLS and all("reqbench_refused_request" in c.request for c in calls)
