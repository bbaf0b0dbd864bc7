"""A run of many honest long-conversation rows finishes with every row scored and within the store bound.

The store bound is per row (`REQBENCH_ROW_STORE_BYTES`) and counts what a row's model calls add to the run
store. Each row here is a 30-turn conversation of the built-in ``llm`` agent whose commands print ~4 KB of
fresh random text per turn; stored whole (in the cache and in ``model_calls``), each row's requests would need
~4 MB, almost four times the 1 MiB bound set for the test. Stored as parts, no row is cut off and the store holds less than the bound per row.
Real run, real loopback provider, real sandboxed commands, real SQLite.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import reqbench
from tests.security.redteam import trimmed_suite
from tests.support.scripted_openai import ScriptedOpenAI, reply

pytestmark = pytest.mark.slow  # a whole run of 6 rows x 31 model calls

MiB = 1024**2
BOUND, ROWS, TURNS = MiB, 6, 30


def turn(body: dict, index: int):
    """Each conversation runs `TURNS` commands printing fresh random text, then replies."""
    done = sum(1 for m in body["messages"] if m["role"] == "assistant")
    if done >= TURNS:
        return reply("Done.\n```reply\nfinished\n```")
    return reply(f"THOUGHT: step {done}.\n```bash\nhead -c 3000 /dev/urandom | base64\n```")


def test_honest_long_rows_are_all_scored_and_stay_within_the_bound(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE", "REQBENCH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REQBENCH_API_KEY", "k")  # keys come from the environment only
    monkeypatch.setenv("REQBENCH_ROW_STORE_BYTES", str(BOUND))
    suite = trimmed_suite("specpath", tmp_path / "suite")
    run_dir = tmp_path / "run"
    with ScriptedOpenAI(turn) as provider:
        reqbench.run(suite, agent="llm", model="openai/m", base_url=provider.base_url, out=run_dir,
                     conditions=["direct"], repeats=ROWS, concurrency=2,
                     allow_unpriced=True,
                     agent_options={"specpath.barrier_between_repeats": "false"})
        sent = [len(json.dumps(r).encode()) for r in provider.chat_requests]
    assert len(sent) >= ROWS * TURNS
    assert 2 * sum(sent) > 3 * ROWS * BOUND  # stored whole, twice: three times every row's bound

    conn = sqlite3.connect(run_dir / "run.sqlite")
    outcomes = conn.execute("SELECT status, reason FROM attempts").fetchall()
    per_row = conn.execute("SELECT row_key, SUM(stored_bytes) FROM model_calls GROUP BY row_key").fetchall()
    conn.close()
    assert len(outcomes) == ROWS and all(status == "scored" for status, _ in outcomes), outcomes
    assert not any(reason == "resource_limit" for _, reason in outcomes)
    assert len(per_row) == ROWS and all(stored < BOUND for _, stored in per_row)
    assert sum(p.stat().st_size for p in run_dir.glob("run.sqlite*")) < ROWS * BOUND
