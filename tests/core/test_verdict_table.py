"""Same event, same verdict: every agent-side event of `core.execute.verdict.EVENTS`, run as a real row of
every bundled protocol, ends exactly as `EVENT_OUTCOMES` says -- with one attempt, or three where the table
says the harness failed (re-run at the same budget, then attrition).

Each event is made by a real mechanism (`verdict_agents`): the sandboxed `command` agent, the Claude Code
preset on a fake binary that prints a rate-limit error without calling any model, the harness's chat
client against a loopback provider that answers 429-then-200 or 503 every time, the sandbox launcher.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reqbench import api
from reqbench.core.execute.outcomes import DEFAULT_MAX_ATTEMPTS
from reqbench.core.execute.types import RunOptions
from reqbench.core.execute.verdict import EVENT_OUTCOMES, EVENTS, PROTOCOLS, readme_verdict_table
from tests.core.verdict_agents import fake_claude
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

AGENT = "tests.core.verdict_agents:make_event_agent"
SUITES = {"takeover": ("demo:takeover", ("C1",), {}),
          "specpath": ("demo:specpath/slugkit", ("direct",), {}),
          "journey": ("demo:journey", ("non-coder",), {"journey.max_turns": 2}),
          "pace": ("demo:pace/cachetools-slru", ("prd",), {})}
NEEDS_SANDBOX = {"provider_text_without_call", "launcher_failure"}


def _script(event: str) -> Any:
    if event == "upstream_429_then_200":
        return lambda body, index: Reply(status=429, retry_after=0) if index % 2 == 0 else reply("ok")
    return lambda body, index: Reply(status=503)


@pytest.fixture(scope="module")
def provider() -> Iterator[dict[str, ScriptedOpenAI]]:
    with ScriptedOpenAI(_script("upstream_429_then_200")) as flaky, ScriptedOpenAI(_script("x")) as down:
        yield {"upstream_429_then_200": flaky, "upstream_5xx_x3": down}


@pytest.mark.parametrize("protocol", PROTOCOLS)
@pytest.mark.parametrize("event", list(EVENTS))
def test_the_same_agent_side_event_ends_as_the_verdict_table_says(
        event: str, protocol: str, provider: dict[str, ScriptedOpenAI], tmp_path: Path) -> None:
    if event in NEEDS_SANDBOX and shutil.which("bwrap") is None:
        pytest.skip("needs bubblewrap (the preset and the launcher run only in the sandbox)")
    suite, conditions, settings = SUITES[protocol]
    opts: dict[str, Any] = {"event": event, **settings, "binary": str(fake_claude(tmp_path))}
    if event in provider:
        opts["provider"] = provider[event].base_url
    if event == "provider_text_without_call":  # preflight asks the endpoint; the fake tool never calls it
        opts["base_url"] = provider["upstream_5xx_x3"].base_url
    if event == "agent_timeout":
        opts["step_timeout"] = 2
    options = RunOptions(agent=AGENT, conditions=conditions, agent_options=opts,
                         unsafe_no_sandbox=shutil.which("bwrap") is None)
    store, _ = api.execute(api.resolve_suite(suite), options, tmp_path / "run")
    with store:
        outcomes = store.outcomes()
        attempts = store.counts()["attempts"]
    status, reason = EVENT_OUTCOMES[event][protocol]
    assert outcomes, "the run planned no row"
    got = {(o.status.value, o.reason) for _, o in outcomes}
    assert got == {(status, reason)}, [o.detail[:300] for _, o in outcomes]
    per_row = DEFAULT_MAX_ATTEMPTS if status == "invalid" else 1
    assert attempts == per_row * len(outcomes)


def test_the_docs_print_the_verdict_table() -> None:
    runs_page = (Path(__file__).resolve().parents[2] / "docs" / "runs.md").read_text(encoding="utf-8")
    assert readme_verdict_table() in runs_page
