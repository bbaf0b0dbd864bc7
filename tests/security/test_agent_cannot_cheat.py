"""A hostile agent scores exactly what the `null` agent scores, in every protocol (the integrity issue's
definition of done): it cannot read the answers, tamper with the checks or the suite, leak the harness's
secrets into the run, or leave a process behind; and every row it touched is final, not attrition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.security.redteam import cheat_and_null

PROTOCOLS = ["specpath", "takeover", "journey", "pace"]


@pytest.fixture
def facts(request: pytest.FixtureRequest, require_bwrap: None, tmp_path_factory: pytest.TempPathFactory,
          ) -> dict[str, Any]:
    shared = tmp_path_factory.getbasetemp().parent / "redteam"
    return cheat_and_null(request.param, shared)


def _summary(facts: dict[str, Any], run: str) -> dict[str, Any]:
    report = facts["reports"][run]
    assert "error" not in report, report
    return report


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_agent_that_reads_the_answers_scores_exactly_like_null(facts: dict[str, Any]) -> None:
    assert facts["null_rc"] == 0 and facts["cheat_rc"] == 0, facts["cheat_stderr"]
    null, cheat = _summary(facts, "null"), _summary(facts, "cheat")
    assert _headline(facts, cheat) == _headline(facts, null) != []


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_the_same_thief_without_the_sandbox_does_get_credit(facts: dict[str, Any]) -> None:
    """Positive control: without bubblewrap (and with --unsafe-no-sandbox) the answers are readable and
    the score moves, so the tests above can fail."""
    assert facts["unsandboxed_rc"] == 0
    unsafe = _summary(facts, "unsandboxed")
    assert _headline(facts, unsafe) != _headline(facts, _summary(facts, "null"))
    assert "UNSAFE" in json.dumps(unsafe["run"]) or unsafe["run"]["options"].get("unsafe_no_sandbox")


def _headline(facts: dict[str, Any], report: dict[str, Any]) -> list[str]:
    """The protocol's headline numbers (their labels name the agent, so only the values compare)."""
    return sorted(str(v) for v in report["summary"]["headline"].values())


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_every_row_of_a_cheating_agent_is_final_not_attrition(facts: dict[str, Any]) -> None:
    counts = _summary(facts, "cheat")["run"]["counts"]
    assert counts["planned"] > 0 and counts["scored"] == counts["planned"], counts
    assert counts["pending"] == counts["invalid"] == 0


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_agent_tampering_with_the_suite_and_other_copies_changes_no_file(facts: dict[str, Any]) -> None:
    assert facts["after"] == facts["before"]


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_agent_cannot_plant_a_remembered_validation_verdict(facts: dict[str, Any]) -> None:
    assert facts["planted"] == []  # the cache of passing verdicts is hidden from the sandbox


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_agent_reading_the_harness_secrets_leaks_no_canary_into_the_run(facts: dict[str, Any]) -> None:
    needle = facts["canary"].encode()
    run_dir = Path(facts["root"]) / "cheat"
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert any(p.name == "run.sqlite" for p in files)
    assert [p for p in files if needle in p.read_bytes()] == []


@pytest.mark.parametrize("facts", PROTOCOLS, indirect=True)
def test_daemon_left_behind_by_the_agent_does_not_survive_its_step(facts: dict[str, Any]) -> None:
    assert facts["daemons_alive"] == []
