"""The documented rule of which options are credentials (`core.execute.credentials`), case by case: what is
refused, what is not (the options reqbench's own agents and protocols take), and that a refusal never
repeats the value."""

from __future__ import annotations

import pytest

from reqbench.core.errors import InputError
from reqbench.core.execute.credentials import credential_refusal, find_credential, refuse_inline_credentials

SECRET = "sk-ant-api03-" + "Zq9" * 12

REFUSED = [
    {"api_key": "x"}, {"key": "x"}, {"token": "x"}, {"auth": "x"}, {"password": "x"}, {"accessToken": "x"},
    {"client-secret": "x"}, {"pace.api_key": "x"}, {"env": {"OPENAI_API_KEY": "x"}}, {"env": {"GITHUB_TOKEN": "x"}},
    {"headers": {"Authorization": "x"}}, {"note": SECRET}, {"note": "sk-proj-" + "a1" * 12},
    {"extra_args": ["--header", "Bearer abcdefgh12345678"]}, {"base_url": "https://me:hunter2@example.org/v1"},
    {"env": "OPENAI_API_KEY=x,B=2"}, {"template": "FOO=1 ANTHROPIC_API_KEY=x tool {workspace}"},
    {"extra_args": "--api-key x"}, {"x": "ghp_" + "A" * 36}, {"x": "AKIA" + "B" * 16}, {"x": "hf_" + "c" * 30},
    {"x": "-----BEGIN OPENSSH PRIVATE KEY-----"},
]
ACCEPTED = [
    {"model": "openai/gpt-4o", "base_url": "http://127.0.0.1:8000/v1", "max_tokens": 32768, "temperature": 0},
    {"stage": "diagnostic", "binary": "/usr/bin/claude", "keep_scratch": True, "extra_args": ["--max-turns", "5"]},
    {"template": "python agent.py --task {prompt_file} --seed=3 {workspace}", "network": False},
    {"specpath.cost_limit": 0.25, "specpath.agent_timeout": 600, "journey.frozen_user": "/tmp/f.json"},
    {"takeover.instructions": "/tmp/instructions.md", "pace.max_steps": 40, "cache": "/tmp/c.sqlite"},
    {"env": {"FAKE_CALLS": "2", "ANTHROPIC_MODEL": "claude-sonnet-4-5"}, "offline": 1, "prices": "p.yaml"},
    {"replay_sha": "a" * 64, "history": "sketch-of-a-task"},
]


@pytest.mark.parametrize("options", REFUSED, ids=lambda o: next(iter(o)))
def test_an_option_named_or_valued_like_a_credential_is_refused(options: dict[str, object]) -> None:
    assert find_credential(options) is not None


@pytest.mark.parametrize("options", ACCEPTED, ids=lambda o: next(iter(o)))
def test_the_options_agents_and_protocols_take_are_not_credentials(options: dict[str, object]) -> None:
    assert find_credential(options) is None


def test_the_refusal_names_the_agents_variable_and_never_repeats_the_value() -> None:
    with pytest.raises(InputError) as refused:
        refuse_inline_credentials("claude-code:claude-sonnet-4-5", {"note": SECRET})
    text = str(refused.value)
    assert "ANTHROPIC_API_KEY" in text and "--agent-opt note" in text and SECRET not in text
    item, sentence = credential_refusal("llm", {}, judge=f"llm:m,key={SECRET}") or ("", "")
    assert item == "--judge" and "REQBENCH_API_KEY (or OPENAI_API_KEY)" in sentence and SECRET not in sentence
