"""Record/replay: a recorded request is never sent again; offline replays or fails clearly."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.errors import InputError
from reqbench.core.llm.cache import SqliteResponseCache
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.errors import OfflineCacheMiss
from reqbench.core.llm.pricing import load_prices
from tests.support.scripted_openai import ScriptedOpenAI, reply

MSGS = [{"role": "user", "content": "classify"}]


def test_cache_hit_sends_no_request_even_from_a_new_process_client(tmp_path: Path) -> None:
    db = tmp_path / "llm.sqlite"
    with ScriptedOpenAI([reply("first"), reply("second")]) as srv:
        a = ChatClient(LLMConfig(base_url=srv.base_url, cache=SqliteResponseCache(db)))
        assert a.complete(MSGS, model="m", temperature=0).content == "first"
        b = ChatClient(LLMConfig(base_url=srv.base_url, cache=SqliteResponseCache(db)))
        again = b.complete(MSGS, model="m", temperature=0)
        assert len(srv.requests) == 1
    assert again.content == "first" and again.cached


def test_different_settings_are_different_requests(tmp_path: Path) -> None:
    with ScriptedOpenAI([reply("t0"), reply("t1")]) as srv:
        c = ChatClient(LLMConfig(base_url=srv.base_url))
        assert c.complete(MSGS, model="m", temperature=0).content == "t0"
        assert c.complete(MSGS, model="m", temperature=1).content == "t1"
        assert len(srv.requests) == 2


def test_offline_replays_recording_against_no_endpoint(tmp_path: Path) -> None:
    db = tmp_path / "llm.sqlite"
    with ScriptedOpenAI([reply("recorded")]) as srv:
        ChatClient(LLMConfig(base_url=srv.base_url, cache=SqliteResponseCache(db))).complete(MSGS, model="m")
    offline = ChatClient(LLMConfig(base_url=None, offline=True, cache=SqliteResponseCache(db)))
    assert offline.complete(MSGS, model="m").content == "recorded"
    with pytest.raises(OfflineCacheMiss, match="--offline") as info:
        offline.complete([{"role": "user", "content": "never asked"}], model="m")
    assert isinstance(info.value, InputError)


def test_offline_miss_sends_nothing_even_with_an_endpoint() -> None:
    with ScriptedOpenAI([reply("x")]) as srv:
        c = ChatClient(LLMConfig(base_url=srv.base_url, offline=True))
        with pytest.raises(OfflineCacheMiss):
            c.complete(MSGS, model="m")
        assert srv.requests == []


class RunStoreLike:
    """Any object with get_cached/put_cached works; this one stores JSON text as a store might."""

    def __init__(self) -> None:
        self.rows: dict[str, str] = {}

    def get_cached(self, key: str) -> Any | None:
        return self.rows.get(key)

    def put_cached(self, key: str, value: Any) -> None:
        self.rows[key] = json.dumps(value)


def test_any_object_with_get_and_put_cached_serves_as_the_cache() -> None:
    store = RunStoreLike()
    with ScriptedOpenAI([reply("once")]) as srv:
        cfg = LLMConfig(base_url=srv.base_url, cache=store)
        ChatClient(cfg).complete(MSGS, model="m")
        out = ChatClient(cfg).complete(MSGS, model="m")
        assert len(srv.requests) == 1
    assert out.cached and out.content == "once"
    (record,) = (json.loads(v) for v in store.rows.values())
    assert record["request"]["messages"] == MSGS and record["response"]["choices"][0]["message"]["content"] \
        == "once"


def test_concurrent_identical_requests_are_sent_once() -> None:
    with ScriptedOpenAI(lambda body, i: reply(f"r{i}", delay=0.1)) as srv:
        c = ChatClient(LLMConfig(base_url=srv.base_url, concurrency=4))
        results: list[str] = []
        threads = [threading.Thread(target=lambda: results.append(c.complete(MSGS, model="m").content))
                   for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(srv.requests) == 1
    assert results == ["r0"] * 4


def test_price_file_overrides_and_unknown_model_costs_none(tmp_path: Path) -> None:
    f = tmp_path / "prices.yaml"
    f.write_text("house-model: {input_per_1m: 1.0, output_per_1m: 3.0}\n")
    with ScriptedOpenAI([reply("a", prompt_tokens=2000, completion_tokens=1000), reply("b")]) as srv:
        c = ChatClient(LLMConfig(base_url=srv.base_url, prices=load_prices(f)))
        # 2000 * 1.0/1e6 + 1000 * 3.0/1e6 = 0.005
        assert c.complete(MSGS, model="local/house-model").cost_usd == pytest.approx(0.005)
        assert c.complete(MSGS, model="nobody-priced-this").cost_usd is None


def test_bad_price_file_is_a_user_error(tmp_path: Path) -> None:
    f = tmp_path / "prices.yaml"
    f.write_text("m: {input_per_1m: cheap}\n")
    with pytest.raises(InputError, match="input_per_1m"):
        load_prices(f)


class NamespacedStore:
    """The run store's shape: get_cached(kind, key) / put_cached(kind, key, value)."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], Any] = {}

    def get_cached(self, kind: str, key: str) -> Any | None:
        return self.rows.get((kind, key))

    def put_cached(self, kind: str, key: str, value: Any) -> None:
        self.rows.setdefault((kind, key), value)


def test_a_namespaced_run_store_is_scoped_to_llm_records() -> None:
    store = NamespacedStore()
    with ScriptedOpenAI([reply("once")]) as srv:
        cfg = LLMConfig(base_url=srv.base_url, cache=store)
        ChatClient(cfg).complete(MSGS, model="m")
        assert ChatClient(cfg).complete(MSGS, model="m").cached
        assert len(srv.requests) == 1
    assert [kind for kind, _ in store.rows] == ["llm"]
