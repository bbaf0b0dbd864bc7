"""Frozen simulated users in a journey study (``freeze_user_from``): the pilot's user reactions replayed to
the other configurations wherever the conversation state matches, live simulation (recorded) elsewhere.

Pilot ``ref`` (reference assistant); ``ref2`` behaves exactly like it, so every reaction matches;
``nothing`` (null assistant) changes nothing, so only the opening message (same base repository, same
initial user state) matches: after its first turn the hidden tests still show the base results while the
pilot's show progress.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from reqbench.core.bundled import bundled_suite
from reqbench.core.store import RunStore
from reqbench.protocols.journey.frozen_user import FrozenUser, key_hash, reaction_key
from reqbench.protocols.journey.models import load_suite
from reqbench.protocols.journey.online import TestRun as HiddenTests
from reqbench.protocols.journey.suite import make_simulator
from tests.cli.generic_helpers import reqbench

PERSONAS = ["non-coder", "software-architect"]


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("frozen")
    spec = tmp / "study.yaml"
    spec.write_text(yaml.safe_dump({"suite": "demo:journey", "conditions": PERSONAS, "freeze_user_from": "ref",
                                    "configurations": [{"name": "ref", "agent": "reference"},
                                                       {"name": "ref2", "agent": "reference"},
                                                       {"name": "nothing", "agent": "null"}]}))
    out = tmp / "study"
    ran = reqbench("study", "run", str(spec), "--out", str(out), "--concurrency", "2", "--quiet", timeout=600)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = reqbench("study", "report", str(out), "--json")
    assert report.returncode == 0, report.stderr
    rows = {}
    for name in ("ref", "ref2", "nothing"):
        with RunStore.open(out / "runs" / name, read_only=True) as store:
            rows[name] = {r.condition: o for r, o in store.outcomes(with_artifacts=True)}
            rows[name + "-options"] = store.meta.options["agent_options"]
    tables = {t["title"]: t for t in json.loads(report.stdout)["tables"]}
    return {"out": out, "rows": rows, "tables": tables}


def _messages(outcome: Any) -> list[str]:
    return [t["user_message"] for t in json.loads(outcome.artifacts["transcript.json"])["turns"]]


def test_the_study_hands_the_pilots_users_to_every_other_configuration(study: dict[str, Any]) -> None:
    frozen = study["out"] / "frozen-user.json"
    doc = json.loads(frozen.read_text())
    assert doc["pilot"] == "ref" and sorted(doc["sessions"]) == [f"tasklet|{p}|0" for p in sorted(PERSONAS)]
    assert "journey.frozen_user" not in study["rows"]["ref-options"]
    assert study["rows"]["ref2-options"]["journey.frozen_user"] == str(frozen)
    assert study["rows"]["ref"]["non-coder"].result.frozen_user is None  # the pilot simulates live


def test_a_configuration_in_the_pilots_state_replays_every_reaction(study: dict[str, Any]) -> None:
    for persona in PERSONAS:
        pilot, twin = study["rows"]["ref"][persona], study["rows"]["ref2"][persona]
        turns = len(pilot.result.trace)
        assert twin.result.frozen_user == {"reactions": turns + 1, "replayed": turns + 1,
                                              "first_divergence": None}
        assert _messages(twin) == _messages(pilot)


def test_a_diverging_configuration_falls_back_to_live_simulation_and_says_where(study: dict[str, Any]) -> None:
    for persona in PERSONAS:
        found = study["rows"]["nothing"][persona].result.stored()
        turns = len(found["trace"])
        assert found["frozen_user"] == {"reactions": turns + 1, "replayed": 1, "first_divergence": {
            "position": 1, "why": "the hidden-test results differ"}}


def test_report_shows_the_replayed_share_per_configuration(study: dict[str, Any]) -> None:
    table = study["tables"]["frozen simulated users (pilot ref): replayed reactions by configuration"]
    rows = table["rows"]
    nothing_reactions = sum(len(study["rows"]["nothing"][p].result.trace) + 1 for p in PERSONAS)
    assert rows["ref"]["role"] == "pilot" and rows["ref"]["sessions"] == 0
    assert rows["ref2"]["replayed share"]["value"] == 1.0 and rows["ref2"]["sessions diverged"] == 0
    assert rows["nothing"]["replayed share"] == {"value": pytest.approx(2 / nothing_reactions),
                                                 "n": nothing_reactions}
    assert rows["nothing"]["sessions diverged"] == 2 and "matching key" in table["estimator"]


def test_frozen_user_replays_the_pilots_turn_and_records_why_it_answers_live() -> None:
    root = bundled_suite("journey")
    _, instances = load_suite(root)
    sim = make_simulator("deterministic", instances[0], "non-coder", root, seed=1)
    base = HiddenTests({"t::a": False}, "")
    key = reaction_key(0, sim.state, base.probes, None, False)
    pilot = [{"key": key, "key_hash": key_hash(key), "simulator": sim.checkpoint(),
              "user": {"message": "frozen opening", "confidence": 55, "statuses": {}, "disclosed": [],
                       "end": None, "notes": {}}}]
    frozen = FrozenUser(sim, pilot)
    assert frozen.open(base).message == "frozen opening" and frozen.last_reaction == {"replayed": True}
    other = FrozenUser(make_simulator("deterministic", instances[0], "non-coder", root, seed=1), pilot)
    live = other.open(HiddenTests({"t::a": True}, ""))
    assert live.message != "frozen opening"
    assert other.last_reaction == {"replayed": False, "diverged": "the hidden-test results differ"}
