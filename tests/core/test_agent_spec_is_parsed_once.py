"""A run's agent is parsed once into its typed parts: the spec (name, argument, version, the agent's own
options), core's step limits and the protocols' settings; every reader takes its part from that record."""

from __future__ import annotations

import pickle

import pytest
from pydantic import Field

from reqbench.core.agents.base import Budget
from reqbench.core.agents.spec import AgentSpec, parse_agent
from reqbench.core.errors import InputError
from reqbench.core.execute.settings import ProtocolOptions, split_settings
from reqbench.core.execute.types import RunOptions


class DemoOptions(ProtocolOptions):
    agent_timeout: float = Field(60.0, description="seconds")


def test_each_kind_of_option_goes_to_its_owner() -> None:
    config = parse_agent("claude-code@2.1.332:gpt-x", {"step_timeout": "30", "specpath.agent_timeout": 5,
                                                        "pace.max_steps": 3, "binary": "/bin/claude"})
    assert (config.spec.name, config.spec.arg, config.spec.version) == ("claude-code", "gpt-x", "2.1.332")
    assert dict(config.spec.options) == {"binary": "/bin/claude"}
    assert config.spec.factory_options() == {"binary": "/bin/claude", "version": "2.1.332", "arg": "gpt-x"}
    assert config.limits.step_timeout == 30.0
    assert {p: dict(v) for p, v in config.settings.given.items()} == {"specpath": {"agent_timeout": 5},
                                                                      "pace": {"max_steps": 3}}
    assert config.settings.typed("specpath", DemoOptions).agent_timeout == 5.0
    assert config.settings.typed("takeover", DemoOptions).agent_timeout == 60.0  # none given: the defaults


def test_a_dotted_factory_keeps_its_name_out_of_the_options() -> None:
    spec = AgentSpec.parse("mypkg.agents:make", {"x": 1})
    assert spec.dotted and spec.arg == "make" and spec.factory_options() == {"x": 1}


def test_step_limits_cap_a_budget_and_never_raise_it() -> None:
    limits = parse_agent("reference", {"step_timeout": 10}).limits
    assert limits.cap(Budget(wall_seconds=100.0)).wall_seconds == 10.0
    assert limits.cap(Budget(wall_seconds=5.0)).wall_seconds == 5.0
    assert parse_agent("reference").limits.cap(Budget(wall_seconds=7.0)).wall_seconds == 7.0


@pytest.mark.parametrize(("agent", "options", "item", "rule"), [
    ("reference", {"step_timeout": "soon"}, "--agent-opt step_timeout", "must be a number of seconds"),
    ("reference", {"step_timeout": 0}, "--agent-opt step_timeout", "must be positive"),
    ("reference", {"step_timeout": float("nan")}, "--agent-opt step_timeout", "must be a finite number"),
    ("reference", {"step_timeout": float("inf")}, "--agent-opt step_timeout", "must be a finite number"),
    ("command@1.0", {}, "--agent", "only CLI presets"),
])
def test_a_bad_spec_or_limit_is_one_error_naming_it(agent: str, options: dict[str, object], item: str,
                                                    rule: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_agent(agent, options)
    assert caught.value.item == item and rule in caught.value.rule


def test_a_mistyped_setting_names_the_key_and_the_closest_known_one() -> None:
    config = parse_agent("reference", {"demo.agent_timeuot": 5})
    with pytest.raises(InputError) as caught:
        config.settings.typed("demo", DemoOptions)
    assert caught.value.item == "--agent-opt demo.agent_timeuot"
    assert "did you mean 'demo.agent_timeout'" in caught.value.rule
    with pytest.raises(InputError) as typed:
        split_settings({"demo.agent_timeout": "never"}, "demo", DemoOptions)
    assert typed.value.item == "--agent-opt demo.agent_timeout"


def test_run_options_parse_once_store_as_given_and_travel_to_workers() -> None:
    options = RunOptions(agent="replay:patches", agent_options={"step_timeout": 9, "journey.max_turns": 2})
    assert options.agent_config is options.agent_config  # parsed once per run
    assert options.agent_config.spec.arg == "patches" and options.agent_config.limits.step_timeout == 9.0
    copy = pickle.loads(pickle.dumps(options))  # remote executors ship the options
    assert copy.agent_config == options.agent_config and copy.agent_options == options.agent_options
