"""Threat: one row floods the run store with distinct model traffic, and the bound that stops it punishes
everyone. The store quota was the run's (1 GiB over every row), and each request was stored whole -- a long
honest conversation cost the square of its length -- so a hostile row could use up the quota and have the
honest rows after it cut off, or honest long conversations could fill it themselves.

The bound is per row (`REQBENCH_ROW_STORE_BYTES`) and counts what a row's calls add to the store as
content-addressed parts: a hostile row sending fresh random content through the gateway, and one sending it
through the built-in agent's client, are each cut off alone (``resource_limit``), while honest rows holding
60-turn conversations at the same time get every call answered and stay far inside the same bound.
Real gateway, real loopback provider, real run store.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from pathlib import Path

import httpx
import pytest

from reqbench.core.errors import ReqbenchError
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.gateway import Gateway, StoreRecorder, Upstream
from reqbench.core.llm.gateway.scope import row_scope
from reqbench.core.llm.ledger import FailureKind, row_ledger
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.active import activate
from tests.support.scripted_openai import ScriptedOpenAI, reply

MiB = 1024**2
BOUND = 2 * MiB
HONEST_ROWS, TURNS = 4, 60


def post(http: httpx.Client, gw: Gateway, token: str, messages: list[dict]) -> httpx.Response:
    return http.post(gw.base_url + "/chat/completions", headers={"Authorization": f"Bearer {token}"},
                     json={"model": "scripted", "messages": messages}, timeout=60)


def honest(gw: Gateway, token: str, statuses: list[int]) -> None:
    """A 60-turn conversation: each turn adds ~5.5 KB of fresh tool output to everything said before."""
    messages = [{"role": "system", "content": "You are a coding agent."}]
    with httpx.Client() as http:
        for turn in range(TURNS):
            messages.append({"role": "user", "content": f"output {turn}: " + secrets.token_hex(2750)})
            answer = post(http, gw, token, messages)
            statuses.append(answer.status_code)
            messages.append(answer.json()["choices"][0]["message"])


def row_bytes(run_dir: Path) -> dict[str, int]:
    conn = sqlite3.connect(run_dir / "run.sqlite")
    rows = dict(conn.execute("SELECT row_key, SUM(stored_bytes) FROM model_calls GROUP BY row_key").fetchall())
    conn.close()
    return rows


def test_a_row_flooding_fresh_content_is_cut_off_and_honest_long_rows_are_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_ROW_STORE_BYTES", str(BOUND))
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    honest_statuses: list[list[int]] = [[] for _ in range(HONEST_ROWS)]
    with ScriptedOpenAI(lambda body, i: reply("ok, next")) as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=StoreRecorder.for_store(store)) as gw:
        leases = [gw.open_row(f"honest-{i}") for i in range(HONEST_ROWS)]
        workers = [threading.Thread(target=honest, args=(gw, lease.token, honest_statuses[i]))
                   for i, lease in enumerate(leases)]
        for worker in workers:
            worker.start()
        flood = gw.open_row("hostile")
        with httpx.Client() as http:  # 8 MB of fresh content against a 2 MiB bound
            flooded = [post(http, gw, flood.token, [{"role": "user", "content": secrets.token_urlsafe(300_000)}])
                       .status_code for _ in range(20)]
        for worker in workers:
            worker.join()

    assert flooded[:3] == [200, 200, 200] and set(flooded[-10:]) == {400}
    assert flood.usage()["resource_limit"].startswith("resource limit")
    assert "store bound" in flood.usage()["resource_limit"]
    assert all(s == [200] * TURNS for s in honest_statuses), "an honest row was cut off"
    assert all(lease.usage()["resource_limit"] is None for lease in leases)
    stored = row_bytes(tmp_path / "run")
    assert stored["hostile"] <= BOUND + 400_000  # the bound, passed by at most the call in flight
    assert all(stored[f"honest-{i}"] < BOUND / 2 for i in range(HONEST_ROWS))
    store.close()


def test_the_built_in_agents_client_counts_against_the_same_bound(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_ROW_STORE_BYTES", str(BOUND))
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    outcomes: dict[str, list[str]] = {}
    with ScriptedOpenAI(lambda body, i: reply("ok")) as upstream, activate(store):
        client = ChatClient(LLMConfig(base_url=upstream.base_url, api_key="k", attempts=1))
        for row, size in (("hostile", 300_000), ("honest", 2_000)):
            with row_scope(row), row_ledger() as ledger:
                seen = outcomes.setdefault(row, [])
                for _ in range(12):
                    try:
                        client.complete([{"role": "user", "content": secrets.token_urlsafe(size)}], model="scripted")
                        seen.append("answered")
                    except ReqbenchError:
                        seen.append("refused")
                kinds = {o.kind for o in ledger.since(0)}
                seen.append("resource_limit" if FailureKind.RESOURCE in kinds else "")
        sent = len(upstream.requests)
    assert outcomes["honest"] == ["answered"] * 12 + [""]
    assert "refused" in outcomes["hostile"] and outcomes["hostile"][-1] == "resource_limit"
    assert outcomes["hostile"].index("refused") >= 3  # honest-sized use first: ~0.4 MB a call
    assert sent == outcomes["hostile"].count("answered") + 12  # a refused call is never sent
    assert row_bytes(tmp_path / "run")["hostile"] <= BOUND + 400_000
    store.close()
