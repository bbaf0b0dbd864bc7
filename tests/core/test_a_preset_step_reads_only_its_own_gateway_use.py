"""A preset's step reads what it used from the gateway as a typed difference of two lease readings: a
session's second turn reports its own calls, tokens, dollars and models, never the first turn's too."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from reqbench.core.agents.base import Budget
from reqbench.core.llm.gateway.leases import Claim, Lease
from reqbench.core.llm.gateway.usage import LeaseUsage
from tests.core.test_presets import CLAUDE_OK, preset
from tests.support.scripted_openai import Reply, ScriptedOpenAI
from tests.support.wire import messages_body


def _call(lease: Lease, prompt: int, completion: int, cost: float | None, model: str) -> None:
    claim = Claim(tokens=prompt + completion, cost_usd=cost or 0.0)
    assert lease.admit(claim) is None
    lease.settle(claim, (prompt, completion, cost), served=model)


def test_the_second_turn_counts_only_itself() -> None:
    lease = Lease(row_key="t|c|a|0", ledger=None)
    start = lease.measured()
    _call(lease, 100, 10, 0.5, "gpt-a")
    first = lease.measured().since(start)
    middle = lease.measured()
    _call(lease, 40, 4, 0.25, "gpt-b")
    _call(lease, 60, 6, None, "gpt-b")
    second = lease.measured().since(middle)
    assert (first.calls, first.prompt_tokens, first.cost_usd, first.models) == (1, 100, 0.5, {"gpt-a": 1})
    assert (second.calls, second.prompt_tokens, second.completion_tokens) == (2, 100, 10)
    assert second.cost_usd == 0.25 and second.models == {"gpt-b": 2}
    assert not second.cost_complete  # an unpriced call: the lease's dollars are a lower bound from then on
    assert lease.usage() == lease.measured().to_dict()  # the JSON a row reports is the same reading
    assert set(lease.usage()) == set(LeaseUsage().to_dict())


def test_no_call_during_a_step_is_an_empty_difference() -> None:
    lease = Lease(row_key="t|c|a|0", ledger=None)
    _call(lease, 5, 5, 0.1, "m")
    before = lease.measured()
    step = lease.measured().since(before)
    assert (step.calls, step.prompt_tokens, step.cost_usd, step.models, step.provider_errors) == (0, 0, 0.0, {}, 0)


def test_a_sessions_second_turn_reports_its_own_dollars_and_models(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A real preset session (a scripted Claude Code against a loopback provider) on one lease: each turn's
    trajectory note and usage count that turn's calls only."""
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"claude-x": {"input_per_1m": 100.0, "output_per_1m": 200.0}}))
    monkeypatch.setenv("REQBENCH_PRICES", str(prices))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "greet.py").write_text('print("Hello")\n')
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    body = messages_body("ok", input_tokens=100, output_tokens=40, model="claude-x")
    with ScriptedOpenAI(lambda req, i: Reply(body=body)) as srv:
        agent = preset(tmp_path, "claude-code", "claude", CLAUDE_OK, model="claude-x", base_url=srv.base_url,
                       env={"FAKE_CALLS": "1"})
        session = agent.start_session(workspace)
        turns = [session.send(text, Budget(wall_seconds=60)) for text in ("Change it.", "Now explain.")]
        session.close()
    one_call = (100 * 100 + 40 * 200) / 1e6
    for turn in turns:
        gateway = turn.trajectory[0].data["gateway"]
        assert (gateway["calls"], gateway["prompt_tokens"], gateway["models"]) == (1, 100, {"claude-x": 1})
        assert gateway["cost_usd"] == pytest.approx(one_call) and turn.usage.cost_usd == pytest.approx(one_call)
