"""The OpenAI-compatible client against a real loopback server: retries, failures, concurrency."""

from __future__ import annotations

import threading
import uuid

import pytest

from reqbench.core.errors import InputError
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.errors import MalformedOutput, ProviderError
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply

MSGS = [{"role": "user", "content": "hi"}]


def make_client(srv: ScriptedOpenAI, sleeps: list[float] | None = None, **kw: object) -> ChatClient:
    rec = sleeps if sleeps is not None else []
    cfg = LLMConfig(base_url=srv.base_url, api_key="sk-test", sleep=rec.append, **kw)  # type: ignore[arg-type]
    return ChatClient(cfg)


def test_success_strips_provider_prefix_and_counts_usage() -> None:
    with ScriptedOpenAI([reply("hello", prompt_tokens=1000, completion_tokens=500)]) as srv:
        out = make_client(srv).complete(MSGS, model="openai/gpt-4o", temperature=0, seed=7)
    assert out.content == "hello"
    assert (out.prompt_tokens, out.completion_tokens) == (1000, 500)
    # gpt-4o default price: 2.50 in / 10.00 out per 1M -> 1000*2.5e-6 + 500*1e-5
    assert out.cost_usd == pytest.approx(0.0075)
    sent = srv.chat_requests[0]
    assert sent["model"] == "gpt-4o"
    assert sent["temperature"] == 0 and sent["seed"] == 7
    assert srv.requests[0]["headers"]["authorization"] == "Bearer sk-test"
    assert not out.cached and out.attempts == 1


def test_rate_limit_is_retried_honouring_retry_after() -> None:
    sleeps: list[float] = []
    with ScriptedOpenAI([Reply(status=429, retry_after=1.5), reply("ok")]) as srv:
        out = make_client(srv, sleeps).complete(MSGS, model="m")
        assert len(srv.requests) == 2
    assert out.content == "ok" and out.attempts == 2
    assert sleeps == [1.5]


def test_server_errors_three_times_become_provider_error_with_backoff() -> None:
    sleeps: list[float] = []
    with ScriptedOpenAI([Reply(status=500)] * 3 + [reply("too late")]) as srv:
        with pytest.raises(ProviderError) as info:
            make_client(srv, sleeps, backoff_base=0.5).complete(MSGS, model="m")
        assert len(srv.requests) == 3
    assert "after 3 attempts" in str(info.value) and "HTTP 500" in str(info.value)
    assert sleeps == [0.5, 1.0]


def test_client_error_is_not_retried() -> None:
    with ScriptedOpenAI([Reply(status=401, body={"error": "bad key"}), reply("never")]) as srv:
        with pytest.raises(ProviderError) as info:
            make_client(srv).complete(MSGS, model="m")
        assert len(srv.requests) == 1
    assert info.value.status == 401


def test_timeout_is_retried_then_provider_error() -> None:
    with ScriptedOpenAI([Reply(body={}, delay=1.0)] * 2) as srv:
        with pytest.raises(ProviderError, match="timeout"):
            make_client(srv, timeout=0.2, attempts=2).complete(MSGS, model="m")
        assert len(srv.requests) == 2


def test_connection_refused_is_a_provider_error() -> None:
    srv = ScriptedOpenAI([]).start()
    url = srv.base_url
    srv.stop()
    client = ChatClient(LLMConfig(base_url=url, sleep=lambda s: None, attempts=2))
    with pytest.raises(ProviderError, match="connection error"):
        client.complete(MSGS, model="m")


def test_malformed_body_is_classified_and_never_recorded() -> None:
    script = [Reply(raw=b"{not json"), Reply(body={"choices": []}), reply("fine")]
    with ScriptedOpenAI(script) as srv:
        client = make_client(srv)
        with pytest.raises(MalformedOutput, match="not JSON"):
            client.complete(MSGS, model="m")
        with pytest.raises(MalformedOutput, match="no choices"):
            client.complete(MSGS, model="m")
        assert client.complete(MSGS, model="m").content == "fine"
        assert len(srv.requests) == 3


def test_concurrency_cap_is_respected_by_the_endpoint() -> None:
    with ScriptedOpenAI(lambda body, i: reply(f"r{i}", delay=0.15)) as srv:
        # The cap is process-wide per base URL, set by the first client of that URL: a URL of its own, so an
        # earlier test's server on the same (reused) port cannot have set it.
        cfg = LLMConfig(base_url=f"{srv.base_url}/cap-{uuid.uuid4().hex}", api_key="sk-test", concurrency=2)
        client = ChatClient(cfg)
        threads = [threading.Thread(target=client.complete,
                                    args=([{"role": "user", "content": f"q{i}"}],), kwargs={"model": "m"})
                   for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(srv.requests) == 6
        assert srv.max_in_flight == 2


def test_missing_endpoint_is_a_user_error() -> None:
    client = ChatClient(LLMConfig(base_url=None))
    with pytest.raises(InputError, match="REQBENCH_BASE_URL"):
        client.complete(MSGS, model="m")


def test_config_from_env_prefers_reqbench_variables(tmp_path) -> None:
    env = {"OPENAI_BASE_URL": "http://a/v1", "REQBENCH_BASE_URL": "http://b/v1",
           "OPENAI_API_KEY": "k1", "REQBENCH_OFFLINE": "1"}
    cfg = LLMConfig.from_env(env)
    assert (cfg.base_url, cfg.api_key, cfg.offline) == ("http://b/v1", "k1", True)
    cfg2 = LLMConfig.from_env({"OPENAI_BASE_URL": "http://a/v1"}, base_url="http://c/v1", api_key=None)
    assert cfg2.base_url == "http://c/v1" and cfg2.api_key is None and cfg2.offline is False
