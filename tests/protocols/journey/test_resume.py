"""Journey sessions survive the harness and the process (issue: resumable sessions, SWE-Journey B.1).

Real sessions on the calc instance (real sandboxed hidden tests, real SQLite run store). Check
infrastructure is made to fail for real: the instance's test command exits 4 before the test runner
starts (a HARNESS_ERROR) while a flag file exists and the workspace already has `div` (the last subtask),
so the failure lands mid-session; deleting the flag repairs it without changing the suite. The assistant
is core's `reference` control with a log of every message it was asked (`spy_agent`).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.regrade import regrade_run
from reqbench.core.execute.types import Row, RowStatus, RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.journey.simulators.base import Observation, UserTurn
from reqbench.protocols.journey.simulators.deterministic import DeterministicSimulator
from reqbench.protocols.journey.suite import PROTOCOL

from .conftest import SPEC, build_instance
from .spy_agent import asked

SPY = "tests.protocols.journey.spy_agent:make_spy"
PERSONA = "software-architect"
TESTS = "{pytest} -q --continue-on-collection-errors {hidden}/tests_hidden"


def flaky_instance(root: Path, flag: Path) -> Path:
    """The calc instance whose hidden tests cannot start while `flag` exists and `div` is implemented."""
    spec = copy.deepcopy(SPEC)
    spec["testbed"]["test_command"] = (f"if test -e {flag} && grep -q 'def div' calc.py; then exit 4; fi; "
                                           + TESTS)
    return build_instance(root, spec)


def options(log: Path) -> RunOptions:
    return RunOptions(agent=SPY, conditions=(PERSONA,), agent_options={"log": str(log)})


def open_store(run_dir: Path, suite: Path) -> RunStore:
    return RunStore.create(run_dir, RunMeta(suite_path=str(suite), protocol="journey", created=utc_now(),
                                            options={"agent": SPY, "seed": 1}, reqbench_version="t"))


def transcript(store: RunStore, row: Row, attempt_no: int) -> dict:
    attempt = next(a for a in store.attempts(row) if a.attempt_no == attempt_no)
    return json.loads(store.to_outcome(attempt).artifacts["transcript.json"])


@pytest.fixture
def responses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The turns the simulated user reacted to, in order (the real simulator, counted)."""
    seen: list[int] = []
    real = DeterministicSimulator.respond

    def counted(self: DeterministicSimulator, obs: Observation) -> UserTurn:
        seen.append(obs.turn)
        return real(self, obs)

    monkeypatch.setattr(DeterministicSimulator, "respond", counted)
    return seen


def test_a_harness_failure_mid_session_is_pending_and_resume_scores_it_without_asking_again(
        tmp_path: Path, responses: list[int]) -> None:
    flag, log = tmp_path / "broken", tmp_path / "asked.jsonl"
    flag.write_text("")
    suite = flaky_instance(tmp_path / "suite", flag)
    with open_store(tmp_path / "run", suite) as store:
        first = execute_run(store, PROTOCOL.load(suite), options(log))
        row = store.plan()[0]
        assert (first["pending"], first["scored"], first["invalid"]) == (1, 0, 0)
        pending = store.attempts(row)[0]
        assert (pending.status, pending.reason) == (RowStatus.PENDING, "check_infrastructure")
        before, reacted = asked(log), list(responses)
        assert before and reacted == list(range(1, len(before)))  # the last turn's tests never ran
        # regrade never runs an agent: a session stopped mid-way has no frozen submission to re-score yet
        regraded = regrade_run(store, PROTOCOL.load(suite), options(log), label="g", checks=True)
        assert (regraded["skipped"], regraded["regraded"], asked(log)) == (1, 0, before)

        flag.unlink()  # infrastructure repaired; the suite itself is unchanged
        second = execute_run(store, PROTOCOL.load(suite), options(log))
        assert second["scored"] == 1
        attempts = store.attempts(row)
        record = transcript(store, row, attempts[-1].attempt_no)
    assert [(a.kind, a.status.value, a.grading) for a in attempts] == [("run", "pending", "original"),
                                                                       ("reevaluate", "scored", "original")]
    assert asked(log) == before  # the assistant was not asked anything again
    assert responses == list(range(1, len(before) + 1))  # the user reacted once per turn, never twice
    assert [t["user_message"] for t in record["turns"]] == before
    assert (attempts[-1].result.final_f2p, attempts[-1].result.final_p2p) == (1.0, 1.0)
    assert record["end_reason"] == "all_resolved"


def test_a_resumed_session_scores_exactly_like_an_uninterrupted_one(tmp_path: Path, responses: list[int]) -> None:
    flag = tmp_path / "broken"
    flag.write_text("")
    suite = flaky_instance(tmp_path / "suite", flag)
    with open_store(tmp_path / "interrupted", suite) as store:
        execute_run(store, PROTOCOL.load(suite), options(tmp_path / "a.jsonl"))
        flag.unlink()
        execute_run(store, PROTOCOL.load(suite), options(tmp_path / "a.jsonl"))
        resumed = store.selected_attempt(store.plan()[0])
    with open_store(tmp_path / "clean", suite) as store:
        execute_run(store, PROTOCOL.load(suite), options(tmp_path / "b.jsonl"))
        clean = store.selected_attempt(store.plan()[0])
    assert resumed is not None and clean is not None
    assert resumed.result == clean.result
    assert asked(tmp_path / "a.jsonl") == asked(tmp_path / "b.jsonl")
