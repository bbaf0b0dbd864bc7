"""Red team: an agent cannot shrink its denominator by what it says or leaves behind.

A hostile tool prints a provider-error text ("API Error: 429 ... rate_limit_error") on the tasks it fails,
without making any model call; another crashes its own adapter. Before the verdict table, the first had
those rows removed as ``invalid`` attrition (its FCR rose from 33 % to 100 % in a trial) and the second
ended ``invalid/infrastructure`` in SpecPath. Now every such row is scored, counted in the denominator, with
one attempt, and the run is not "measured nothing" (exit 0, not 3).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.store import RunStore
from tests.core.verdict_agents import fake_claude
from tests.support.scripted_openai import Reply, ScriptedOpenAI

pytestmark = pytest.mark.usefixtures("require_bwrap")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench", "run", "demo:specpath/slugkit", "--quiet",
                           "--out", str(tmp_path / "run"), *args], capture_output=True, text=True, timeout=600)


def test_a_tool_printing_a_rate_limit_without_calling_a_model_is_scored_on_every_row(tmp_path: Path) -> None:
    with ScriptedOpenAI(lambda body, i: Reply(status=503)) as never_called:
        proc = _run(tmp_path, "--agent", "claude-code", "--model", "claude-sonnet-4-5", "--agent-opt",
                    f"binary={fake_claude(tmp_path)}",
                    "--base-url", never_called.base_url)
        assert never_called.requests == []  # the tool made no model call at all
    assert proc.returncode == 0, proc.stderr
    with RunStore.open(tmp_path / "run", read_only=True) as store:
        outcomes = store.outcomes()
        counts = store.counts()
    assert outcomes and {(o.status.value, o.reason) for _, o in outcomes} == {("scored", "agent_exit")}
    assert counts["attempts"] == counts["planned"] == counts["scored"]


def test_an_adapter_that_crashes_is_the_agents_failure_not_infrastructure(tmp_path: Path) -> None:
    proc = _run(tmp_path, "--agent", "tests.core.verdict_agents:make_event_agent",
                "--agent-opt", "event=adapter_raises", "--condition", "direct")
    assert proc.returncode == 0, proc.stderr
    with RunStore.open(tmp_path / "run", read_only=True) as store:
        outcomes = store.outcomes()
        assert store.counts()["attempts"] == len(outcomes)
    assert {(o.status.value, o.reason) for _, o in outcomes} == {("scored", "agent_exit")}
    assert all(json.dumps(o.result.stored()) for _, o in outcomes)
