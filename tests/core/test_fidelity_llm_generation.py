"""SWE-Journey B.1: greedy decoding and a 32,768-token generation cap are the built-in agent's defaults."""

from typing import Any

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.agents.llm_agent import GENERATION_CAP, make_llm_agent


class Response:
    prompt_tokens, completion_tokens, cost_usd, key, cached = 1, 1, None, "k", False
    content = "done\n```reply\nok\n```"


class Client:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def complete(self, messages: Any, **kw: Any) -> Response:
        self.calls.append(kw)
        return Response()


def _run(tmp_path: Any, **opts: Any) -> dict[str, Any]:
    client = Client()
    agent = make_llm_agent("openai/m", client=client, **opts)
    agent.run(tmp_path, AgentInputs(prompt="hi"), Budget())
    return client.calls[0]


def test_defaults_are_greedy_with_the_papers_cap(tmp_path: Any) -> None:
    call = _run(tmp_path)
    assert GENERATION_CAP == 32768
    assert call["temperature"] == 0.0 and call["max_tokens"] == 32768


def test_named_options_override_them(tmp_path: Any) -> None:
    call = _run(tmp_path, temperature="0.7", max_tokens="4096")
    assert call["temperature"] == 0.7 and call["max_tokens"] == 4096
    assert _run(tmp_path, max_tokens="none")["max_tokens"] is None
