"""Run processing against a loopback provider: same-budget retries of invalid rows only, pending rows
re-evaluated on the frozen submission, and regrade into linked attempts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reqbench.cli.main import app
from reqbench.core.agents.base import AgentResult, AgentStatus, Budget
from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.outcomes import Reason, classified
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowOutcome, RunOptions
from reqbench.core.execute.verdict import step_reason
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.errors import ProviderError
from reqbench.core.llm.ledger import RowLedger, current_ledger
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.pace.suite import PROTOCOL as PACE
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply
from tests.support.stub_protocol import StubProtocol, StubSuite


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    monkeypatch.setenv("REQBENCH_API_KEY", "test")
    for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    yield monkeypatch


class OneCallSuite(StubSuite):
    """A suite whose 'agent' is one model call; the budget it ran under is recorded per attempt."""

    def __init__(self, base_url: str, path: Path) -> None:
        self.protocol = StubProtocol("toy")
        self.path = path
        self.base_url = base_url
        self.budgets: list[float] = []

    def plan(self, options: RunOptions) -> list[Row]:
        return [Row("t1", "A", options.agent)]

    def run_row(self, row: Row, ctx: RowContext) -> RowOutcome:
        budget = float(ctx.options.agent_options["timeout"])
        self.budgets.append(budget)
        client = ChatClient(LLMConfig(base_url=self.base_url, api_key="k", timeout=budget, attempts=1,
                                      sleep=lambda s: None))
        ledger = current_ledger() or RowLedger()
        mark = ledger.mark()
        try:
            text = client.complete([{"role": "user", "content": "hi"}], model="m").content
        except ProviderError as exc:  # classified by the verdict table from what the client recorded
            reason = step_reason(AgentResult(AgentStatus.ERROR), ledger.since(mark), Budget())
            assert reason is not None
            return classified(reason, detail=str(exc))
        return classified(Reason.PASSED, {"reply": text})

    def reevaluate(self, row: Row, previous: RowOutcome, ctx: RowContext) -> RowOutcome:
        raise AssertionError("a scored or invalid row is never re-evaluated")


def _store(tmp_path: Path, suite: Path, protocol: str, options: dict[str, Any]) -> RunStore:
    return RunStore.create(tmp_path / "run", RunMeta(suite_path=str(suite), protocol=protocol, options=options,
                                                     created=utc_now(), reqbench_version="t"))


def test_a_429_then_200_gives_one_scored_row_after_a_same_budget_retry(env: pytest.MonkeyPatch,
                                                                        tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    with ScriptedOpenAI([Reply(status=429, retry_after=0), reply("done")]) as srv:
        proto = OneCallSuite(srv.base_url, suite)
        with _store(tmp_path, suite, "toy", {"agent": "a", "seed": 1}) as store:
            counts = execute_run(store, proto, RunOptions(agent="a", agent_options={"timeout": "30"}))
            attempts = store.attempts(Row("t1", "A", "a"))
    assert counts["scored"] == 1 and counts["invalid"] == 0
    assert [(a.status.value, a.reason) for a in attempts] == [("invalid", "provider_rate_limit"),
                                                             ("scored", "passed")]
    assert proto.budgets == [30.0, 30.0]


def _pace_options(judge: str) -> RunOptions:
    return RunOptions(agent="reference", judge=judge, conditions=("prd",))


@pytest.mark.slow  # a whole PACE run, twice
def test_a_judge_that_is_down_leaves_rows_pending_and_resume_scores_them_without_the_agent(
        env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tests.support.gullible import pace_citation, pace_criteria

    def judged(body: dict[str, Any], i: int) -> Reply:
        cite = pace_citation(body)
        return reply(json.dumps({"evidence_checklist": [
            {"criterion_id": c["criterion_id"], "severity": c["severity"], "judgment": "covered",
             "evidence": "cited", "citations": [cite] if cite else []} for c in pace_criteria(body)]}))

    suite = bundled_suite("pace")
    options = _pace_options("llm:test-model")
    with _store(tmp_path, suite, "pace", {"agent": "reference", "judge": "llm:test-model", "seed": 1}) as store:
        # down on every attempt; Retry-After: 0 spares the client's backoff between its retries
        with ScriptedOpenAI(lambda body, i: Reply(status=503, retry_after=0)) as down:
            env.setenv("REQBENCH_BASE_URL", down.base_url)
            first = execute_run(store, PACE.load(suite), options)
        assert first["pending"] == first["planned"] and first["scored"] == 0
        row = store.plan()[0]
        assert store.attempts(row)[0].reason == "judge_unavailable"
        with ScriptedOpenAI(judged) as up:
            env.setenv("REQBENCH_BASE_URL", up.base_url)
            second = execute_run(store, PACE.load(suite), options)
        assert second["scored"] == second["planned"]
        attempts = store.attempts(row)
    assert [(a.kind, a.status.value) for a in attempts] == [("run", "pending"), ("reevaluate", "scored")]
    assert attempts[0].artifacts["patch"] == attempts[1].artifacts["patch"]


def test_regrade_of_a_demo_run_makes_linked_attempts_and_the_report_shows_both_gradings(
        env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    suite = bundled_suite("pace")
    with _store(tmp_path, suite, "pace", {"agent": "reference", "judge": "offline", "seed": 1,
                                          "conditions": ["prd"]}) as store:
        execute_run(store, PACE.load(suite), _pace_options("offline"))
    runner = CliRunner()
    result = runner.invoke(app, ["regrade", str(tmp_path / "run"), "--judge", "token-overlap", "--label", "second"])
    assert result.exit_code == 0, result.output
    with RunStore.open(tmp_path / "run") as store:
        for row in store.plan():
            first, regraded = store.attempts(row)
            assert (regraded.grading, regraded.parent, regraded.kind) == ("second", first.attempt_no, "reevaluate")
            assert first.grading == "original" and regraded.status.value == "scored"
    second = json.loads(runner.invoke(app, ["report", str(tmp_path / "run"), "--json", "--grading",
                                            "second"]).output)
    assert second["run"]["grading"] == "second"
    assert [g["label"] for g in second["run"]["gradings"]] == ["original", "second"]
    assert second["run"]["rows_by_grading"] == {"second": 3}  # one row per bundled pace case
    original = json.loads(runner.invoke(app, ["report", str(tmp_path / "run"), "--json"]).output)
    assert original["run"]["grading"] == "original"  # the primary grading unless another is asked for
    assert original["run"]["rows_by_grading"] == {"original": 3}
    text = runner.invoke(app, ["report", str(tmp_path / "run")]).output
    assert "gradings" in text and "second" in text and "grading original" in text
