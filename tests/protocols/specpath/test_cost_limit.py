"""The paper's USD 0.25 per-row cost cap is the default (SpecPath §4 "Experiment"); ``specpath.cost_limit=none``
opts out and is recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.agents import registry
from reqbench.core.errors import InputError
from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.specpath.runs import cost_limit, split_options
from reqbench.protocols.specpath.suite import PROTOCOL
from tests.protocols.specpath.test_timeout_rerun import GOOD


@pytest.fixture(autouse=True)
def _spy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.AGENTS, "spy", ("tests.protocols.specpath.spy_agent", "make_spy"))


def _row(family: Path, run_dir: Path, **opts: object) -> dict:
    agent_options = {"specpath.allow_uncalibrated": "true", "write": {"src/tally/__init__.py": GOOD}, **opts}
    options = RunOptions(agent="spy", conditions=("direct",), seed=1, agent_options=agent_options)
    meta = RunMeta(suite_path=str(family), protocol="specpath", created=utc_now(), reqbench_version="t",
                   options={"agent": "spy", "conditions": ["direct"], "seed": 1, "agent_options": agent_options})
    with RunStore.create(run_dir, meta) as store:
        execute_run(store, PROTOCOL.load(family), options)
        (row,) = store.plan()
        (attempt,) = store.attempts(row)
    return {"reason": attempt.reason, "outcome": attempt.result.outcome,
            "limit": attempt.result.cost_limit_usd}


def test_the_default_cap_is_the_papers_quarter_dollar_and_none_opts_out() -> None:
    assert split_options(RunOptions())[0].cost_limit == 0.25
    assert split_options(RunOptions(agent_options={"specpath.cost_limit": "none"}))[0].cost_limit is None
    assert cost_limit("1.5") == 1.5
    for bad in ("cheap", "0", "-1", "NaN", "Infinity", float("nan")):  # JSON option values spell NaN, Infinity
        with pytest.raises(InputError, match="specpath.cost_limit"):
            cost_limit(bad)


def test_a_row_over_the_default_cap_is_a_scored_budget_failure_unless_opted_out(tally_family: Path,
                                                                                tmp_path: Path) -> None:
    assert _row(tally_family, tmp_path / "under", cost=0.24) == {"reason": "passed", "outcome": "success",
                                                                  "limit": 0.25}
    assert _row(tally_family, tmp_path / "over", cost=0.26) == {"reason": "budget_exhausted",
                                                                 "outcome": "failure", "limit": 0.25}
    assert _row(tally_family, tmp_path / "none", cost=0.26, **{"specpath.cost_limit": "none"}) == {
        "reason": "passed", "outcome": "success", "limit": None}
