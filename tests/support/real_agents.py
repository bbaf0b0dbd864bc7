"""One bundled row for the real third-party agent CLIs (integration tests): a git workspace whose
``greet.py`` prints Hello, the task of making it print Goodbye, its score, and a run of the preset in a
row of a real run store, live or ``--offline``.

The upstream model is a scripted server on 127.0.0.1 behind the run's model gateway; each test's script
answers in its tool's own wire format, picking the next step from the tool results already in the
conversation (so a replayed run takes the same path).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from reqbench.core.agents import versions
from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget
from reqbench.core.agents.registry import make_agent
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.llm.gateway.scope import row_scope
from reqbench.core.llm.run_access import offline_run
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.active import activate
from tests.support.scripted_openai import ScriptedOpenAI

TASK = "Make greet.py print Goodbye instead of Hello."


def git(ws: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(ws), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          check=True, capture_output=True, text=True).stdout


def make_workspace(path: Path) -> Path:
    path.mkdir()
    (path / "greet.py").write_text('print("Hello")\n')
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "base"]):
        git(path, *args)
    return path


def score(ws: Path) -> float:
    """1.0 when the workspace's program prints Goodbye (the row's check, run on the real edit)."""
    out = subprocess.run([sys.executable, "greet.py"], cwd=ws, capture_output=True, text=True).stdout
    return 1.0 if out.strip() == "Goodbye" else 0.0


def new_store(path: Path) -> tuple[RunStore, StoreRecorder]:
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    store = RunStore.create(path, meta)
    return store, StoreRecorder.for_store(store)


def installed(name: str) -> tuple[Path, float]:
    """The pinned tool from the agents cache (installed on first use), and the install time in seconds."""
    binary, seconds = versions.install(name)
    print(f"{name} {versions.PACKAGES[name].pinned} ready ({seconds:.1f}s to install)")
    return binary, seconds


def run_row(agent_name: str, row: str, store: RunStore, ws: Path, base_url: str, *, offline: bool, model: str,
            key: str, budget: Budget | None = None, **opts: Any) -> AgentResult:
    """The preset run as a row of `store` would run it (`budget`: 300 s of wall clock unless given): its
    gateway records into the store, replays offline."""
    agent = make_agent(agent_name, model=model, base_url=base_url, api_key=key, **opts)
    with activate(store), offline_run(offline), row_scope(row):
        return agent.run(ws, AgentInputs(prompt=TASK), budget or Budget(wall_seconds=300))


def same_patch(ws: Path, ws2: Path) -> tuple[str, str]:
    """The two workspaces' diffs, the second with its folder name mapped back to the first."""
    return git(ws, "diff"), git(ws2, "diff").replace(ws2.name, ws.name)


def replays_offline(agent_name: str, row: str, store: RunStore, recorder: StoreRecorder, ws: Path, ws2: Path,
                    script: Any, *, live_calls: int, model: str, key: str, **opts: Any) -> AgentResult:
    """Re-run the row `--offline` in the fresh workspace `ws2`: zero upstream requests, a completed row
    scored 1.0, the same patch as the live run in `ws`, and the recorder's next calls all replays."""
    with ScriptedOpenAI(script) as upstream:
        replayed = run_row(agent_name, row, store, ws2, upstream.base_url, offline=True, model=model, key=key,
                           **opts)
        assert upstream.requests == []  # zero upstream requests offline
    assert replayed.status is AgentStatus.COMPLETED, replayed.detail
    assert score(ws2) == 1.0
    first, second = same_patch(ws, ws2)
    assert second == first
    assert [c.source for c in recorder.calls(row)[live_calls:]] == ["replay"] * live_calls
    return replayed
