"""The study file: its schema is registered, and bad input is one error naming file, item and rule (exit 2),
before anything is created."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.execute.lanes import LaneItem, interleaved
from reqbench.core.execute.types import Row
from reqbench.study import parse_configuration
from tests.cli.generic_helpers import reqbench
from tests.study.helpers import write_study


def test_schema_study_prints_the_study_file_schema() -> None:
    result = reqbench("schema", "study")
    assert result.returncode == 0, result.stderr
    schema = json.loads(result.stdout)
    assert {"suite", "configurations", "conditions", "repeats", "seed"} <= set(schema["properties"])
    assert schema["$defs"]["Configuration"]["properties"]["agent"]["description"]


def test_duplicate_configuration_name_names_file_item_and_rule(tmp_path: Path) -> None:
    spec = write_study(tmp_path / "s.yaml", [{"name": "a", "agent": "null"}, {"name": "a", "agent": "reference"}])
    result = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert str(spec) in result.stderr and "configurations" in result.stderr and "used twice" in result.stderr
    assert not (tmp_path / "out").exists()


def test_unknown_field_of_a_configuration_is_named_with_its_index_and_name(tmp_path: Path) -> None:
    spec = write_study(tmp_path / "s.yaml", [{"name": "ok", "agent": "null"},
                                             {"name": "bad", "agent": "null", "modle": "x"}])
    result = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "configurations[1] 'bad': unknown key 'modle'; did you mean 'model'?" in result.stderr


def test_preflight_checks_every_configuration_before_anything_starts(tmp_path: Path) -> None:
    spec = write_study(tmp_path / "s.yaml", [{"name": "ok", "agent": "null"},
                                             {"name": "broken", "agent": "replay:/nonexistent/store.jsonl"}])
    result = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert result.returncode == 2
    assert "configuration 'broken'" in result.stderr
    assert not (tmp_path / "out").exists()


def test_rows_of_all_configurations_interleave_in_one_seeded_order() -> None:
    plans = {name: [Row(f"t{i}", "A", name, r) for i in range(6) for r in range(2)] for name in ("x", "y", "z")}
    batches = interleaved(plans, seed=7, barrier=True)
    assert [len(b) for b in batches] == [18, 18] and all(i.repeat == r for r, b in enumerate(batches) for i in b)
    order = [i.lane for i in batches[0]]
    assert order != sorted(order)  # not one configuration after another
    assert interleaved({k: list(reversed(v)) for k, v in plans.items()}, seed=7, barrier=True) == batches  # input order free
    assert isinstance(batches[0][0], LaneItem)


def test_configurations_for_study_add_from_text_or_yaml(tmp_path: Path) -> None:
    [one] = parse_configuration("name=mini,agent=mini-swe-agent,model=gpt-x,opt.step_limit=40")
    assert (one.name, one.agent, one.model, one.agent_opts) == ("mini", "mini-swe-agent", "gpt-x", {"step_limit": 40})
    listed = tmp_path / "more.yaml"
    listed.write_text("configurations:\n  - {name: a, agent: reference}\n  - {name: b, agent: 'null'}\n")
    assert [c.name for c in parse_configuration(str(listed))] == ["a", "b"]
    with pytest.raises(InputError, match="configuration 'x': missing required key 'agent'"):
        parse_configuration("name=x")


def test_freeze_user_from_must_name_a_configuration_of_a_journey_study(tmp_path: Path) -> None:
    spec = write_study(tmp_path / "s.yaml", [{"name": "a", "agent": "null"}], freeze_user_from="pilot")
    result = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "'pilot', which is not a configuration" in result.stderr
    spec = write_study(tmp_path / "s.yaml", [{"name": "a", "agent": "null"}], freeze_user_from="a")
    result = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))  # demo:specpath
    assert result.returncode == 2 and "freeze_user_from" in result.stderr and "journey" in result.stderr
    assert not (tmp_path / "out").exists()
    spec = write_study(tmp_path / "s.yaml", [{"name": "a", "agent": "null"}, {
        "name": "b", "agent": "null", "agent_opts": {"journey.frozen_user": "/x"}}], freeze_user_from="a",
        suite="demo:journey")  # the protocol's frozen-user option, found through its study hook
    result = reqbench("study", "run", str(spec), "--out", str(tmp_path / "out"))
    assert result.returncode == 2 and "'b' sets journey.frozen_user" in result.stderr
