"""Numbers given as ``--agent-opt`` values (`agents.option_text.option_number`): one clear error naming the
option for text, NaN, infinity, a fraction where a whole number is wanted, or a value out of range -- never a
traceback, never a NaN limit that every comparison lets through."""

import math

import pytest

from reqbench.core.agents.llm_agent import make_llm_agent
from reqbench.core.agents.option_text import option_number, option_value, positive_number
from reqbench.core.errors import InputError
from reqbench.core.judges.llm import split_model_spec


@pytest.mark.parametrize(("value", "rules", "rule"), [
    ("soon", {"unit": "seconds"}, "must be a number of seconds"),
    (option_value("NaN"), {"unit": "seconds"}, "must be a finite number of seconds"),  # JSON spells NaN
    (option_value("Infinity"), {"unit": "seconds"}, "must be a finite number of seconds"),
    (-math.inf, {}, "must be a finite number"),
    (True, {}, "must be a number"),
    (0, {}, "must be positive"),
    (-0.5, {"inclusive": True}, "must be at least 0"),
    (1.5, {"integer": True, "unit": "bytes"}, "must be a whole number of bytes"),
    (0.5, {"minimum": 1, "inclusive": True}, "must be at least 1"),
    ("x", {"alternative": "none", "unit": "USD"}, "must be a number of USD or none"),
    (0, {"alternative": "none"}, "must be positive (or none)"),
])
def test_a_bad_number_is_one_error_naming_the_option(value: object, rules: dict[str, object], rule: str) -> None:
    with pytest.raises(InputError) as caught:
        option_number(value, item="--agent-opt x", **rules)  # type: ignore[arg-type]
    assert caught.value.item == "--agent-opt x" and caught.value.rule == rule


def test_good_numbers_come_back_typed_and_whole_numbers_exactly() -> None:
    assert positive_number("2.5", item="i", unit="s") == 2.5
    assert option_number(0, item="i", inclusive=True) == 0.0
    assert option_number("7", item="i", integer=True) == 7 and isinstance(option_number(7.0, item="i", integer=True), int)
    big = 12345678901234567891  # beyond a float's 53 bits: a seed must stay the digits given
    assert option_number(big, item="i", integer=True) == big
    assert option_number(f" {big} ", item="i", integer=True) == big
    assert split_model_spec(f"m,seed={big}") == ("m", {"seed": big})


@pytest.mark.parametrize(("option", "value", "rule"), [
    ("command_timeout", "soon", "must be a number of seconds"),
    ("command_timeout", float("nan"), "must be a finite number of seconds"),
    ("temperature", -1, "must be at least 0"),
    ("seed", "1.5x", "must be a whole number"),
    ("seed", 2.5, "must be a whole number"),
    ("output_cap", 0, "must be positive"),
    ("max_tokens", "lots", "must be a whole number of tokens or none"),
])
def test_the_llm_agent_refuses_a_bad_number_by_name(option: str, value: object, rule: str) -> None:
    with pytest.raises(InputError) as caught:
        make_llm_agent(model="openai/m", base_url="http://127.0.0.1:9/v1", api_key="k", **{option: value})
    assert caught.value.item == f"--agent-opt {option}" and caught.value.rule == rule


def test_the_llm_agent_takes_good_numbers_typed() -> None:
    agent = make_llm_agent(model="openai/m", base_url="http://127.0.0.1:9/v1", api_key="k", temperature="0",
                           seed="3", command_timeout=2, output_cap="100", max_tokens="none")
    assert (agent.temperature, agent.seed, agent.command_timeout, agent.output_cap, agent.max_tokens) == \
        (0.0, 3, 2.0, 100, None)


@pytest.mark.parametrize(("spec", "rule"), [
    ("m,temperature=NaN", "must be a finite number"),
    ("m,temperature=-0.1", "must be at least 0"),
    ("m,seed=1.5", "must be a whole number"),
    ("m,seed=x", "must be a whole number"),
])
def test_a_judges_sampling_settings_follow_the_same_rules(spec: str, rule: str) -> None:
    with pytest.raises(InputError) as caught:
        split_model_spec(spec)
    assert caught.value.rule == rule and caught.value.item.startswith(f"--judge llm:{spec}")
    assert split_model_spec("m, temperature=0.5,seed=-7") == ("m", {"temperature": 0.5, "seed": -7})


@pytest.mark.parametrize(("key", "value"), [("specpath.agent_timeout", "Infinity"),
                                            ("specpath.verifier_timeout", "NaN"), ("journey.max_turns", "NaN")])
def test_protocol_settings_refuse_nan_and_infinity_by_name(key: str, value: str) -> None:
    """Protocol settings arrive as JSON option values; every protocol's settings refuse both."""
    from reqbench.core.execute.settings import split_settings
    from reqbench.protocols.journey.suite import JourneyOptions
    from reqbench.protocols.specpath.runs import SpecpathOptions

    protocol, _ = key.split(".")
    model = {"specpath": SpecpathOptions, "journey": JourneyOptions}[protocol]
    with pytest.raises(InputError) as caught:
        split_settings({key: option_value(value)}, protocol, model)
    assert caught.value.item == f"--agent-opt {key}" and "finite number" in caught.value.rule
