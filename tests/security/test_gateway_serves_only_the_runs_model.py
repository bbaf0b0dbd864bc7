"""Threat: an agent run with ``--model gpt-4o-mini`` has itself served another model (``gpt-4.1``, or any model the
provider key reaches) by naming it in the request body, so the run measures a model nobody asked for.

The gateway forwards only the run's model (with or without a provider prefix) and the auxiliary models its
tool is documented to call (`ToolPackage.auxiliary_models`: Claude Code's small haiku model); anything else
is refused with an error body the agent's SDK shows, and never reaches the provider. The model that answered
each call is recorded, and the report lists the models each row and the run used."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from reqbench.core.agents.registry import make_agent
from reqbench.core.llm.gateway import Gateway, ModelPolicy, StoreRecorder, Upstream
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.model_usage import model_usage_table
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body, messages_body


def ask(gw: Gateway, token: str, api: str, model: str) -> httpx.Response:
    if api == "messages":
        return httpx.post(gw.base_url + "/messages", headers={"x-api-key": token}, timeout=30,
                          json={"model": model, "max_tokens": 50, "messages": [{"role": "user", "content": "hi"}]})
    return httpx.post(gw.base_url + "/chat/completions", headers={"Authorization": f"Bearer {token}"}, timeout=30,
                      json={"model": model, "messages": [{"role": "user", "content": "hi"}]})


def test_a_call_naming_another_model_never_reaches_the_provider(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    served = {"gpt-4o-mini": "gpt-4o-mini-2024-07-18"}  # the provider answers with the dated name

    def provider(body: dict[str, Any], i: int) -> Reply:
        return Reply(body=chat_body("ok", model=served.get(body["model"], body["model"])))

    with ScriptedOpenAI(provider) \
            as upstream, Gateway(Upstream(upstream.base_url, "k"), recorder=StoreRecorder.for_store(store)) as gw:
        lease = gw.open_row("row", models=ModelPolicy("openai/gpt-4o-mini"))
        swapped = ask(gw, lease.token, "chat", "gpt-4.1")
        unnamed = ask(gw, lease.token, "chat", "")
        own = ask(gw, lease.token, "chat", "gpt-4o-mini")
        prefixed = ask(gw, lease.token, "chat", "openai/gpt-4o-mini")
        other_provider = ask(gw, lease.token, "chat", "evil/gpt-4o-mini")
        sent = [r["json"]["model"] for r in upstream.requests]
    assert sent == ["gpt-4o-mini", "openai/gpt-4o-mini"]
    for refused in (swapped, unnamed, other_provider):
        assert refused.status_code == 400
        error = refused.json()["error"]
        assert error["code"] == "model_not_allowed" and "openai/gpt-4o-mini" in error["message"]
    assert "'gpt-4.1' is not this run's model" in swapped.json()["error"]["message"]
    assert own.status_code == prefixed.status_code == 200
    calls = StoreRecorder.for_store(store).calls("row")
    assert [(c.model, c.served_model, c.source) for c in calls] == [
        ("gpt-4.1", "", "refused"), ("", "", "refused"), ("gpt-4o-mini", "gpt-4o-mini-2024-07-18", "upstream"),
        ("openai/gpt-4o-mini", "openai/gpt-4o-mini", "upstream"), ("evil/gpt-4o-mini", "", "refused")]
    assert lease.usage()["models"] == {"gpt-4o-mini-2024-07-18": 1, "openai/gpt-4o-mini": 1}
    store.close()


def test_only_the_presets_documented_auxiliary_models_pass(tmp_path: Path) -> None:
    """Claude Code names its sessions with a small haiku model: allowed for claude-code, and the report shows it
    next to the run's model; the same call from Codex, and an expensive model from Claude Code, are refused."""
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    claude = make_agent("claude-code", model="claude-sonnet-4-5").model_policy()  # type: ignore[attr-defined]
    codex = make_agent("codex", model="gpt-4.1").model_policy()  # type: ignore[attr-defined]
    assert claude.auxiliary and not codex.auxiliary
    with ScriptedOpenAI(lambda body, i: Reply(body=messages_body("ok", model=body["model"]))) as upstream, \
            Gateway(Upstream(upstream.base_url, "k"), recorder=StoreRecorder.for_store(store)) as gw:
        row = gw.open_row("claude-row", models=claude)
        statuses = [ask(gw, row.token, "messages", m).status_code
                    for m in ("claude-sonnet-4-5", "claude-haiku-4-5-20251001", "claude-opus-4-1")]
        codex_row = gw.open_row("codex-row", models=codex)
        codex_haiku = ask(gw, codex_row.token, "messages", "claude-haiku-4-5-20251001")
        assert [r["json"]["model"] for r in upstream.requests] == ["claude-sonnet-4-5", "claude-haiku-4-5-20251001"]
    assert statuses == [200, 200, 400] and codex_haiku.status_code == 400
    assert codex_haiku.json()["error"]["message"] == ("reqbench gateway: model 'claude-haiku-4-5-20251001' is not "
                                                      "this run's model 'gpt-4.1'")
    totals = StoreRecorder.for_store(store).totals()
    table = model_usage_table([{"row": key, **totals[key]} for key in ("claude-row", "codex-row")])
    assert table is not None
    assert [r[-1] for r in table.rows] == ["claude-haiku-4-5-20251001 ×1, claude-sonnet-4-5 ×1", "—",
                                           "claude-haiku-4-5-20251001 ×1, claude-sonnet-4-5 ×1"]
    store.close()
