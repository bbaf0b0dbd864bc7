"""Every report carries each row's model calls, tokens and cost as the model gateway measured them (the run
store's ``model_calls``), counted once: replayed calls cost nothing again, refused calls nothing at all."""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import RunOptions
from reqbench.core.llm.gateway import ModelCall, StoreRecorder
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.run_report import build_payload, provenance_facts, run_tables
from tests.core.toy_protocol import ToyProtocol, write_suite


def call(row: str, source: str, prompt: int, completion: int, cost: float | None, model: str = "m",
         served: str = "") -> ModelCall:
    return ModelCall(row_key=row, step=1, api="chat", model=model, request={"messages": [prompt]},
                     response={}, status=200 if source != "refused" else 400, prompt_tokens=prompt,
                     completion_tokens=completion, cost_usd=cost, source=source, served_model=served)


def toy_run(tmp_path: Path, *tasks: str) -> RunStore:
    """A finished toy run (command agent) of `tasks`, one condition: rows without any model call."""
    suite = write_suite(tmp_path / "suite", [{"id": t, "value": 1} for t in tasks], conditions=("A",))
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path=str(suite), protocol="toy",
                                                      options={"agent": "command", "judge": "exact"},
                                                      created=utc_now(), reqbench_version="t"))
    execute_run(store, ToyProtocol().load(suite), RunOptions(agent="command"), max_attempts=1)
    return store


def test_report_payload_and_table_hold_gateway_usage_per_row(tmp_path: Path) -> None:
    proto = ToyProtocol()
    with toy_run(tmp_path, "a", "b", "c") as store:
        a, b, c = (r.key for r in store.plan())
        rec = StoreRecorder.for_store(store)
        for made in (call(a, "upstream", 1000, 100, 0.0125), call(a, "upstream", 1200, 50, 0.0100, served="m-0513"),
                     call(a, "replay", 1000, 100, 0.0125), call(a, "refused", 0, 0, None),
                     call(b, "upstream", 300, 30, None, model="unpriced"), call(b, "upstream", 200, 20, 0.001)):
            rec.record(made)
        payload = build_payload(store, proto.load(Path(store.meta.suite_path)))
    usage = {u["row"]: u for u in payload["run"]["model_usage"]}
    assert set(usage) == {a, b}  # c made no model call
    assert usage[a] == {"row": a, "calls": 4, "upstream": 2, "replay": 1, "refused": 1, "prompt_tokens": 2200,
                        "completion_tokens": 150, "cost_usd": 0.0225, "cost_complete": True,
                        "models": {"m": 2, "m-0513": 1}}  # the model that answered; refused calls name none
    assert (usage[b]["prompt_tokens"], usage[b]["completion_tokens"]) == (500, 50)
    assert (usage[b]["cost_usd"], usage[b]["cost_complete"]) == (0.001, False)
    json.dumps(payload, default=str)
    table = {t.title: t for t in run_tables(payload, {})}["model usage per row (recorded model calls)"]
    assert table.rows == [[a, "4", "1", "1", "2200", "150", "0.0225", "m ×2, m-0513 ×1"],
                          [b, "2", "0", "0", "500", "50", "0.0010 (partial)", "m ×1, unpriced ×1"],
                          ["total", "6", "1", "1", "2700", "200", "0.0235 (partial)", "m ×3, m-0513 ×1, unpriced ×1"]]
    facts = {label: value for label, value in provenance_facts(payload["run"])}
    assert facts["models used (gateway)"] == "m ×3, m-0513 ×1, unpriced ×1"


def test_a_store_without_gateway_calls_reports_no_usage_table(tmp_path: Path) -> None:
    proto = ToyProtocol()
    with toy_run(tmp_path, "a") as store:
        payload = build_payload(store, proto.load(Path(store.meta.suite_path)))
    assert payload["run"]["model_usage"] == []
    assert not any(t.title.startswith("model usage") for t in run_tables(payload, {}))
