"""A remote row (Ray) cannot reach the run store: its model calls -- the gateway's and the chat client's,
the ``model_calls`` rows reports take usage and cost from -- are kept with the attempt and written by the
driver (`runner.keep_remote_records`), so a run's cost is the same whichever executor ran it."""

from __future__ import annotations

import pickle
import time
from pathlib import Path
from typing import Any

from reqbench.core.execute.context import RunContext, bind
from reqbench.core.execute.runner import AttemptReport, keep_remote_records
from reqbench.core.execute.types import RowOutcome, RowStatus
from reqbench.core.llm.call_log import record_client_call
from reqbench.core.llm.gateway.recorder import MemoryRecorder, ModelCall, StoreRecorder
from reqbench.core.llm.gateway.scope import row_scope, run_recorder
from reqbench.core.store import RunMeta, RunStore, utc_now


class Snapshot:
    """What a remote context replays from (Ray's object reference holds the same `get`)."""

    def get(self) -> dict[str, Any]:
        return {}


def test_a_remote_rows_calls_reach_the_run_store_through_the_driver(tmp_path: Path) -> None:
    context = RunContext(replay=Snapshot())
    with bind(context) as recording, row_scope("t|c|llm|0"):
        assert recording is not None
        gateway_recorder = run_recorder()
        assert gateway_recorder is recording.calls  # the attempt's own list, not a throw-away one
        gateway_recorder.record(ModelCall(row_key="t|c|llm|0", step=1, api="chat", model="m", request={"a": 1},
                                          response={"ok": True}, status=200, prompt_tokens=100,
                                          completion_tokens=20, cost_usd=0.25))
        record_client_call(model="judge-m", request={"b": 2}, response={"ok": True}, status=200, source="upstream",
                           started=time.time(), prompt_tokens=7, completion_tokens=3, cost_usd=0.05)
    calls = recording.calls.calls()
    assert [(c.model, c.prompt_tokens, c.cost_usd) for c in calls] == [("m", 100, 0.25), ("judge-m", 7, 0.05)]
    report = AttemptReport(RowOutcome(RowStatus.SCORED), "run", utc_now(), utc_now(), calls=calls)
    report = pickle.loads(pickle.dumps(report))  # as the executor ships it back
    meta = RunMeta(suite_path=str(tmp_path), protocol="toy", options={"agent": "llm"}, created=utc_now(),
                   reqbench_version="test")
    with RunStore.create(tmp_path / "run", meta) as store:
        keep_remote_records(store, report)
        totals = StoreRecorder.for_store(store).totals()["t|c|llm|0"]
    assert (totals["prompt_tokens"], totals["completion_tokens"]) == (107, 23)
    assert abs(totals["cost_usd"] - 0.30) < 1e-9


def test_outside_a_run_calls_go_nowhere_persistent() -> None:
    assert isinstance(run_recorder(), MemoryRecorder)
    record_client_call(model="m", request={}, response={}, status=200, source="upstream", started=time.time())
