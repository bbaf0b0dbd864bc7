"""Threat: an agent escapes its row's budget at the model gateway -- by firing many calls at once (each passed
the check before any cost was added: 12 simultaneous calls at a $0.01 limit had 7-11 forwarded and paid), or
by naming a model without a price (which cost $0, so a dollar budget never ran out).

The gateway reserves each call's worst case before forwarding it and admits a call only while the settled
cost plus the reservations in flight is below the limit, so at most one call crosses it whatever the
concurrency; a model without a price is refused under a dollar budget unless the run gives it one
(``--price``/``--prices``) or allows unpriced models (``--allow-unpriced``, recorded and reported)."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest

from reqbench.core.errors import InputError
from reqbench.core.llm.gateway import Gateway, MemoryRecorder, RowBudget, Upstream
from reqbench.core.llm.gateway.scope import row_gateway, row_scope
from reqbench.core.llm.pricing import Price, RunPricing
from reqbench.core.store import RunStore
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body

PRICE = {"m": Price(2.0, 2.0)}
PER_CALL = (1000 + 1000) * 2.0 / 1e6  # $0.004: 1,000 prompt + 1,000 completion tokens
LIMIT = 0.01
N = 12


def body(model: str = "m") -> dict[str, Any]:
    return {"model": model, "max_tokens": 1000, "messages": [{"role": "user", "content": "x" * 4000}]}


def post(gw: Gateway, token: str, payload: dict[str, Any]) -> httpx.Response:
    return httpx.post(gw.base_url + "/chat/completions", json=payload, headers={"Authorization": f"Bearer {token}"},
                      timeout=120)


def provider_behind_a_barrier() -> ScriptedOpenAI:
    """Holds every request until all N have arrived (or a few seconds passed), so calls the gateway lets
    through together are in flight together; answers 1,000 + 1,000 tokens."""
    barrier = threading.Barrier(N, timeout=3)

    def answer(request: dict[str, Any], index: int) -> Reply:
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            pass
        return Reply(body=chat_body("ok", prompt_tokens=1000, completion_tokens=1000, model=request["model"]))
    return ScriptedOpenAI(answer)


def fire_at_once(gw: Gateway, token: str) -> list[httpx.Response]:
    start = threading.Barrier(N)
    out: list[httpx.Response] = []
    lock = threading.Lock()

    def one() -> None:
        start.wait()
        resp = post(gw, token, body())
        with lock:
            out.append(resp)

    threads = [threading.Thread(target=one) for _ in range(N)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_simultaneous_calls_cross_a_dollar_limit_at_most_once() -> None:
    with provider_behind_a_barrier() as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder(), prices=PRICE) as gw:
        lease = gw.open_row("row", RowBudget(max_cost_usd=LIMIT))
        answers = fire_at_once(gw, lease.token)
        forwarded = len(upstream.requests)
    assert forwarded <= math.ceil(LIMIT / PER_CALL)  # 3: two below the limit, one crossing it
    assert sorted(r.status_code for r in answers) == [200] * forwarded + [400] * (N - forwarded)
    assert all("budget exhausted" in r.text for r in answers if r.status_code == 400)
    usage = lease.usage()
    assert usage["calls"] == forwarded and usage["cost_usd"] == pytest.approx(forwarded * PER_CALL)
    assert usage["cost_usd"] - PER_CALL < LIMIT  # everything before the last call was below the limit


@pytest.mark.parametrize(("budget", "most"), [(RowBudget(max_calls=2), 2), (RowBudget(max_tokens=5000), 3)])
def test_simultaneous_calls_respect_call_and_token_limits(budget: RowBudget, most: int) -> None:
    with provider_behind_a_barrier() as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder(), prices=PRICE) as gw:
        lease = gw.open_row("row", budget)
        fire_at_once(gw, lease.token)
        assert len(upstream.requests) <= most


def test_an_unpriced_model_is_refused_under_a_dollar_budget_until_the_run_prices_it() -> None:
    with ScriptedOpenAI(lambda b, i: Reply(body=chat_body("ok", prompt_tokens=1000, completion_tokens=1000))) \
            as upstream:
        up = Upstream(upstream.base_url, "k")
        with Gateway(up, recorder=MemoryRecorder()) as gw:
            lease = gw.open_row("row", RowBudget(max_cost_usd=LIMIT))
            refused = post(gw, lease.token, body("house-model"))
            free = gw.open_row("no-dollar-budget", RowBudget(max_calls=5))
            assert post(gw, free.token, body("house-model")).status_code == 200  # no dollar budget to escape
        assert len(upstream.requests) == 1
        assert refused.status_code == 400 and refused.json()["error"]["code"] == "unpriced_model"
        assert "--price house-model=IN/OUT" in refused.json()["error"]["message"]
        assert lease.usage()["refused"] == 1

        # what `reqbench run --price house-model=2/2` and `--allow-unpriced` give every row of the run
        priced = RunPricing.from_json({"house-model": [2.0, 2.0]})
        with row_scope("row", priced), row_gateway(up, RowBudget(max_cost_usd=LIMIT),
                                                   recorder=MemoryRecorder()) as (gw, lease):
            assert post(gw, lease.token, body("house-model")).status_code == 200
            assert lease.usage()["cost_usd"] == pytest.approx(PER_CALL)
        with row_scope("row", RunPricing(allow_unpriced=True)), \
                row_gateway(up, RowBudget(max_cost_usd=LIMIT), recorder=MemoryRecorder()) as (gw, lease):
            assert post(gw, lease.token, body("house-model")).status_code == 200
            assert lease.usage()["cost_usd"] is None and lease.usage()["cost_complete"] is False


def test_run_records_its_prices_and_says_when_unpriced_models_were_allowed(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}])
    prices = tmp_path / "prices.yaml"
    prices.write_text("house-model: {input_per_1m: 1.0, output_per_1m: 3.0}\n"
                      "other: {input_per_1m: 9, output_per_1m: 9}\n")
    run = tmp_path / "run"
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(run), "--prices", str(prices),
                    "--price", "other=0.5/1.5", "--allow-unpriced", COLUMNS="400")  # the full report
    assert proc.returncode == 0, proc.stderr
    with RunStore.open(run, read_only=True) as store:
        options = store.meta.options
    assert options["prices"] == {"house-model": [1.0, 3.0], "other": [0.5, 1.5]} and options["allow_unpriced"]
    assert (f"this run's: house-model 1/3, other 0.5/1.5 USD per 1M (from --prices {prices}, --price) over built-in "
            "table; UNPRICED models allowed") in " ".join(proc.stdout.split())
    again = reqbench("run", str(suite), "--agent", "reference", "--out", str(run), "--resume", "--quiet",
                     "--prices", str(prices), "--price", "other=0.5/1.5")
    assert again.returncode == 2 and "allow_unpriced" in again.stderr  # a resume charges alike or says so
    bad = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp_path / "bad"), "--price", "m=cheap")
    assert bad.returncode == 2 and "--price m=cheap" in bad.stderr and not (tmp_path / "bad").exists()


def test_price_items_are_checked() -> None:
    from reqbench.cli.generic_run import run_prices

    assert run_prices(["a=1/2", "openai/b=0/0.5"], None) == {"a": [1.0, 2.0], "openai/b": [0.0, 0.5]}
    for text in ("a=1", "=1/2", "a=-1/2", "a=x/y", "a=nan/1"):
        with pytest.raises(InputError, match="MODEL=IN/OUT"):
            run_prices([text], None)
