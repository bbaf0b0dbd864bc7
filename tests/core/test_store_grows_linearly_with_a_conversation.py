"""A run store grows with the new content of each model call, not with the square of a conversation.

Every request of the built-in ``llm`` agent repeats the conversation so far. Stored whole (once in the
record/replay cache, once in ``model_calls``), 60 turns of ~5.5 KB each made a 20 MB ``run.sqlite`` for a last
request of 333 KB. Stored as content-addressed parts (`core.store.blobs`) the run store stays within twice
its largest request, and an offline replay of the run from those parts gives the same answers.
Real run, real loopback provider, real SQLite.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import reqbench
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.store.writer import flush_writes
from tests.security.redteam import trimmed_suite
from tests.support.scripted_openai import ScriptedOpenAI, reply

pytestmark = pytest.mark.slow  # a whole run of 61 model calls

TURNS = 60


def turn(body: dict, index: int):
    """Turn i prints ~5.5 KB of new output; after `TURNS` turns the agent replies."""
    if index >= TURNS:
        return reply("Done.\n```reply\nfinished\n```")
    return reply(f"THOUGHT: look at block {index}.\n```bash\nseq {index * 100_000} {index * 100_000 + 780}\n```")


def forget_attempts(run_dir: Path) -> list[tuple[str, str, str]]:
    """Delete the attempts (the rows run again, from the recording); their (row, status, reason)."""
    conn = sqlite3.connect(run_dir / "run.sqlite")
    outcomes = conn.execute("SELECT row_key, status, reason FROM attempts ORDER BY row_key").fetchall()
    with conn:
        for table in ("attempt_artifacts", "submissions", "check_results", "scores", "attempts"):
            conn.execute(f"DELETE FROM {table}")
    conn.close()
    return outcomes


def answers(run_dir: Path) -> list[tuple[str, str]]:
    calls = StoreRecorder(run_dir / "run.sqlite").calls()
    return [(c.source, json.dumps(c.response["choices"][0]["message"], sort_keys=True)) for c in calls]


def test_a_60_turn_conversation_stores_within_twice_its_largest_request(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE", "REQBENCH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("REQBENCH_API_KEY", "k")  # keys come from the environment only
    suite = trimmed_suite("specpath", tmp_path / "suite")
    run_dir = tmp_path / "run"
    with ScriptedOpenAI(turn) as provider:
        reqbench.run(suite, agent="llm", model="openai/m", base_url=provider.base_url, out=run_dir,
                     conditions=["direct"], allow_unpriced=True)
        sent = [json.dumps(r).encode() for r in provider.chat_requests]
        url = provider.base_url  # stopped below: the replay can reach no provider
    assert len(sent) == TURNS + 1
    largest, total = max(len(s) for s in sent), sum(len(s) for s in sent)
    assert largest > 300_000 and total > 9_000_000  # the conversation really grew to its full size
    # what the store holds, not a write-ahead log still waiting for its checkpoint (a writer thread that is
    # idling out, a loaded machine): its pages are copies of the database's
    flush_writes(run_dir / "run.sqlite", release=True)
    with sqlite3.connect(run_dir / "run.sqlite") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    stored = sum(p.stat().st_size for p in run_dir.glob("run.sqlite*"))
    assert stored <= 2 * largest, f"run.sqlite is {stored / largest:.1f}x the largest request ({largest} B)"

    recorded = answers(run_dir)
    assert [s for s, _ in recorded] == ["upstream"] * (TURNS + 1)
    requests = [c.request for c in StoreRecorder(run_dir / "run.sqlite").calls()]
    assert [json.dumps(r, sort_keys=True) for r in requests] == \
        [json.dumps(json.loads(s), sort_keys=True) for s in sent]  # every request reads back exactly

    first = forget_attempts(run_dir)
    reqbench.run(suite, agent="llm", model="openai/m", base_url=url, out=run_dir,
                         conditions=["direct"], allow_unpriced=True,
                         offline=True, resume=True)
    replayed = answers(run_dir)[TURNS + 1:]
    assert [s for s, _ in replayed] == ["replay"] * (TURNS + 1)
    assert [a for _, a in replayed] == [a for _, a in recorded]
    assert forget_attempts(run_dir) == first and first[0][1] == "scored"
