"""A configuration error is the user's, refused before the first row, never every row's silent 0.

Under SpecPath's $0.25 per-row budget a model without a price cannot be budgeted: the model gateway refuses
its calls (HTTP 400), the tool exits, and every row would be the agent's scored failure (``agent_exit``);
the built-in ``llm`` agent's calls do not pass the gateway at all, so its budget would go unenforced. Each
case here must exit 2 with one sentence, leave no run or study directory, and run no agent: the stub
``codex`` on PATH records every start in a file, and the loopback model server counts chat requests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError
from reqbench.core.llm.gateway.scope import row_scope
from reqbench.core.llm.pricing import Price, RunPricing
from tests.security.redteam import cli, trimmed_suite
from tests.support.scripted_openai import ScriptedOpenAI, reply

REPLY = "```reply\ndone\n```"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment without the machine's keys and endpoints, a stub ``codex`` first on PATH (it notes each
    start in ``codex-starts``), and no cached preset binaries."""
    stub = tmp_path / "bin" / "codex"
    if not stub.exists():
        stub.parent.mkdir()
        stub.write_text(f'#!/bin/sh\necho "$@" >> {tmp_path / "codex-starts"}\necho codex-cli 0.171.0\n')
        stub.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    return {**env, "PATH": f"{stub.parent}:{env.get('PATH', '/usr/bin:/bin')}",
            "REQBENCH_AGENTS_CACHE": str(tmp_path / "no-agents"), **extra}


def _refused(proc: object, out: Path, *words: str) -> None:
    stderr = getattr(proc, "stderr", "")
    assert getattr(proc, "returncode", None) == 2, getattr(proc, "stdout", "") + stderr
    assert all(w in stderr for w in words), stderr
    assert len(stderr.strip().splitlines()) == 1, stderr  # one sentence
    assert not out.exists()


def test_codex_on_an_unpriced_model_under_a_dollar_budget_is_refused_before_any_agent_runs(tmp_path: Path) -> None:
    suite, out = trimmed_suite("specpath", tmp_path / "suite"), tmp_path / "run"
    with ScriptedOpenAI([reply(REPLY)]) as srv:
        env = _env(tmp_path, OPENAI_API_KEY="sk-test-loopback-key-000000")
        proc = cli(["run", str(suite), "--agent", "codex", "--model", "gpt-5-codex", "--base-url", srv.base_url,
                    "--condition", "direct", "--out", str(out)], env, tmp_path)
        _refused(proc, out, "'gpt-5-codex' has no price", "--price", "--allow-unpriced")
        # left on its tool's own default model, the price is unknowable too
        proc = cli(["run", str(suite), "--agent", "codex", "--base-url", srv.base_url, "--condition", "direct",
                    "--out", str(out)], env, tmp_path)
        _refused(proc, out, "without --model", "--allow-unpriced")
        # a model its own switches name, which the gateway would refuse on every call
        proc = cli(["run", str(suite), "--agent", "codex", "--model", "gpt-4o", "--agent-opt", "extra_args=-m gpt-4.1",
                    "--base-url", srv.base_url, "--condition", "direct", "--out", str(out)], env, tmp_path)
        _refused(proc, out, "extra_args", "'gpt-4.1'")
        assert srv.chat_requests == []
    assert not (tmp_path / "codex-starts").exists()  # not even its --version ran


def test_codex_bound_for_the_providers_endpoint_without_a_key_is_refused(tmp_path: Path) -> None:
    suite, out = trimmed_suite("specpath", tmp_path / "suite"), tmp_path / "run"
    proc = cli(["run", str(suite), "--agent", "codex", "--model", "gpt-4o", "--condition", "direct",
                "--out", str(out)], _env(tmp_path), tmp_path)
    _refused(proc, out, "no key", "REQBENCH_API_KEY")


def test_pricing_or_allowing_the_model_lets_the_same_configuration_through_preflight(tmp_path: Path) -> None:
    """The positive control: the refusal is about the price, not about codex or the model."""
    from reqbench.core.execute.preflight import preflight
    from reqbench.core.execute.types import RunOptions

    env = _env(tmp_path)
    old = dict(os.environ)
    os.environ.update({"PATH": env["PATH"], "REQBENCH_AGENTS_CACHE": env["REQBENCH_AGENTS_CACHE"]})
    try:
        opts = {"model": "gpt-5-codex"}
        with pytest.raises(InputError, match="has no price"):
            preflight(RunOptions(agent="codex", agent_options=opts, offline=True, unsafe_no_sandbox=True), 0.25)
        priced = RunOptions(agent="codex", agent_options=opts, offline=True, unsafe_no_sandbox=True,
                            prices={"gpt-5-codex": [1.25, 10.0]})
        allowed = RunOptions(agent="codex", agent_options=opts, offline=True, unsafe_no_sandbox=True,
                             allow_unpriced=True)
        for options in (priced, allowed):
            assert preflight(options, 0.25).program == "codex"
        assert preflight(RunOptions(agent="codex", agent_options=opts, offline=True, unsafe_no_sandbox=True),
                         None).program == "codex"  # no dollar budget: nothing to enforce
    finally:
        os.environ.clear()
        os.environ.update(old)


def test_the_llm_agent_on_an_unpriced_model_under_a_dollar_budget_is_refused_before_the_first_row(
        tmp_path: Path) -> None:
    suite, out = trimmed_suite("specpath", tmp_path / "suite"), tmp_path / "run"
    with ScriptedOpenAI(lambda body, i: reply(REPLY)) as srv:
        env = _env(tmp_path, REQBENCH_API_KEY="loopback")
        proc = cli(["run", str(suite), "--agent", "llm", "--model", "openai/unpriced-x", "--base-url",
                    srv.base_url, "--condition", "direct", "--out", str(out)], env, tmp_path)
        _refused(proc, out, "'openai/unpriced-x' has no price")
        proc = cli(["run", str(suite), "--agent", "llm", "--model", "openai/unpriced-x", "--condition", "direct",
                    "--out", str(out), "--allow-unpriced"], env, tmp_path)
        _refused(proc, out, "no model endpoint", "--base-url")
        assert srv.chat_requests == []


def test_a_study_refuses_an_unpriced_configuration_before_any_configuration_starts(tmp_path: Path) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    with ScriptedOpenAI(lambda body, i: reply(REPLY)) as srv:
        configs = [{"name": "priced", "agent": "llm", "model": "openai/scripted", "agent_opts": {"base_url": srv.base_url}},
                   {"name": "unpriced", "agent": "llm", "model": "openai/unpriced-x",
                    "agent_opts": {"base_url": srv.base_url}}]
        study = tmp_path / "study.yaml"
        study.write_text(yaml.safe_dump({"suite": str(suite), "configurations": configs, "conditions": ["direct"]}))
        out = tmp_path / "S"
        proc = cli(["study", "run", str(study), "--out", str(out)], _env(tmp_path, REQBENCH_API_KEY="k"), tmp_path)
        _refused(proc, out, "'unpriced'", "has no price")
        assert srv.chat_requests == []  # not even the priced configuration started


def test_the_llm_agents_own_calls_obey_the_price_rule_and_the_runs_prices(tmp_path: Path) -> None:
    """Outside preflight too: the built-in agent's calls do not pass the gateway, so it applies the rule itself."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    with ScriptedOpenAI(lambda body, i: reply("```bash\ntrue\n```", prompt_tokens=1000, completion_tokens=1000)) as srv:
        agent = make_agent("llm", model="openai/unpriced-x", base_url=srv.base_url)
        with pytest.raises(InputError, match="has no price"):
            agent.run(workspace, AgentInputs(prompt="go"), Budget(max_cost_usd=0.25))
        assert srv.chat_requests == []
        # priced by the run (``--price``): charged at that price, so the dollar budget ends the row
        expensive = RunPricing(prices=(("openai/unpriced-x", Price(200.0, 200.0)),))
        with row_scope("row", expensive):
            result = agent.run(workspace, AgentInputs(prompt="go"), Budget(max_cost_usd=0.25))
        assert result.usage.cost_usd == pytest.approx(0.4)
        assert result.status is AgentStatus.TIMEOUT and "cost budget" in result.detail
        assert len(srv.chat_requests) == 1
