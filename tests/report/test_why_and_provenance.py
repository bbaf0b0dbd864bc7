"""Every report says what was evaluated and, when rows are not measured, why (reasons, counts, examples)."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.execute.lanes import execute_run
from reqbench.core.execute.types import RunOptions
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.report.run_report import build_payload, run_tables
from tests.core.toy_protocol import ToyProtocol, write_suite


def test_invalid_and_pending_rows_are_explained_with_counts_and_an_example(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "ok", "value": 1}, {"id": "boom", "behaviour": "crash"},
                                             {"id": "wait", "behaviour": "pending"}], conditions=("A",))
    proto = ToyProtocol().load(suite)
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path=str(suite), protocol="toy",
                                                      options={"agent": "command", "judge": "exact"},
                                                      created=utc_now(), reqbench_version="t",
                                                      provenance={"agent": {"program": "sh", "version": "9"}}))
    with store:
        execute_run(store, proto, RunOptions(agent="command"), max_attempts=2)
        payload = build_payload(store, proto)
    why = payload["run"]["why_unmeasured"]
    assert [(w["status"], w["rows"], w["example"]) for w in why] == [("invalid", 1, "boom/A/r0"),
                                                                     ("pending", 1, "wait/A/r0")]
    assert why[0]["reason"] == "harness_exception"
    assert why[0]["example_detail"] == "RuntimeError: toy bug in boom"
    assert why[1]["reason"] == "check could not run"
    tables = {t.title: t for t in run_tables(payload, {})}
    assert "why rows are not measured" in tables
    facts = dict(tables["run"].rows)
    assert facts["agent"] == "command" and facts["agent program"] == "sh 9" and facts["judge"] == "exact"
    assert facts["sandbox"].startswith("bubblewrap")
