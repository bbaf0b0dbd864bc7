"""Every model call of the built-in ``llm`` agent is one recorded call in the run's ``model_calls``, and the
report, the export, the viewer's row table and ATIF all count the same tokens and dollars from there.

Threat guarded: a run whose spend is lost (the agent's calls only in the replay cache, reports showing
``tokens —``) or counted differently by each reader. Real loopback provider, real run, real SQLite.
"""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest

import reqbench
from reqbench.core.store import RunStore
from reqbench.report.export_atif import export_atif
from reqbench.report.export_rows import export_rows
from reqbench.report.viewer.index import RowIndex
from tests.security.redteam import trimmed_suite
from tests.support.scripted_openai import ScriptedOpenAI, reply

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`

PROMPT, COMPLETION = 200, 20


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai/m: {input_per_1m: 1000.0, output_per_1m: 2000.0}\n")
    monkeypatch.setenv("REQBENCH_PRICES", str(prices))
    monkeypatch.setenv("REQBENCH_API_KEY", "k")  # keys come from the environment, never from options
    for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE", "REQBENCH_BASE_URL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with ScriptedOpenAI(lambda body, i: reply("```reply\ndone\n```", prompt_tokens=PROMPT,
                                              completion_tokens=COMPLETION)) as srv:
        yield srv


def test_llm_agent_tokens_and_cost_are_recorded_and_every_reader_sums_them_alike(tmp_path: Path,
                                                                                  provider) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    handle = reqbench.run(suite, agent="llm", model="openai/m", base_url=provider.base_url, out=tmp_path / "run",
                          conditions=["direct"])
    sent = len(provider.chat_requests)
    assert sent >= 1
    tokens, cost = sent * (PROMPT + COMPLETION), sent * (PROMPT * 1000 + COMPLETION * 2000) / 1e6

    usage = handle.report()["run"]["model_usage"]
    assert sum(u["prompt_tokens"] + u["completion_tokens"] for u in usage) == tokens
    assert sum(u["upstream"] for u in usage) == sent
    assert sum(u["cost_usd"] for u in usage) == pytest.approx(cost)

    with RunStore.open(handle.run_dir) as store:
        export_rows(store, tmp_path / "rows.csv", "csv")
        export_rows(store, tmp_path / "rows.jsonl", "jsonl")
        index = RowIndex(store).page().rows
        export_atif(store, tmp_path / "atif")
    with open(tmp_path / "rows.csv", newline="") as fh:
        csv_rows = list(csv.DictReader(fh))
    assert sum(float(r["tokens"]) for r in csv_rows) == tokens
    assert sum(float(r["cost_usd"]) for r in csv_rows) == pytest.approx(cost)
    jsonl = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert sum(r["tokens"] for r in jsonl) == tokens
    assert sum(r["tokens"] for r in index) == tokens
    assert sum(r["cost_usd"] for r in index) == pytest.approx(cost)
    atif = [json.loads(p.read_text()) for p in (tmp_path / "atif").glob("*/trajectory.json")]
    assert sum(d["final_metrics"]["total_prompt_tokens"] + d["final_metrics"]["total_completion_tokens"]
               for d in atif) == tokens


def test_a_replayed_call_is_recorded_but_not_counted_again(tmp_path: Path, provider) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    first = reqbench.run(suite, agent="llm", model="openai/m", base_url=provider.base_url, out=tmp_path / "a",
                         conditions=["direct"])
    sent = len(provider.chat_requests)
    conn = sqlite3.connect(first.run_dir / "run.sqlite")  # forget the attempts: the rows run again
    with conn:
        for table in ("attempt_artifacts", "submissions", "check_results", "scores", "attempts"):
            conn.execute(f"DELETE FROM {table}")
    conn.close()
    again = reqbench.run(suite, agent="llm", model="openai/m", base_url=provider.base_url, out=tmp_path / "a",
                         conditions=["direct"], resume=True)
    assert len(provider.chat_requests) == sent
    usage = again.report()["run"]["model_usage"]
    assert sum(u["replay"] for u in usage) == sent
    assert sum(u["prompt_tokens"] for u in usage) == sent * PROMPT
