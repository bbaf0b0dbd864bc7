"""A row's result is its protocol's model from the protocol to every reader: undeclared keys are refused, the
store writes exactly the fields the protocol set and reads them back through the run's ``result_model``, and
a result stored by an earlier version (keys no longer declared, a field in an older shape) still opens,
upgraded at that one point (`core.store.results.read_result`).

Threats guarded: a protocol that stores a key no reader knows about (read later by key, by guess); a report
that guesses a row's protocol from the shape of a dict; an old run directory that no longer opens, or opens
with unchecked values. Real SQLite run stores, the real SpecPath and takeover models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import Field, ValidationError

from reqbench.core.execute.results import OpenResult, ProtocolResult, read_result
from reqbench.core.execute.types import Row, RowOutcome, RowStatus
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.protocols.specpath.row_result import SpecpathResult
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.report.export_rows import records

ROW = Row("fam", "direct", "reference", 0)


def _store(tmp_path: Path, protocol: str) -> RunStore:
    meta = RunMeta(suite_path="/suite", protocol=protocol, options={"agent": "reference", "seed": 1},
                   created=utc_now(), reqbench_version="0")
    store = RunStore.create(tmp_path / protocol, meta)
    store.add_plan([ROW])
    return store


def _stored_json(store: RunStore) -> dict[str, Any]:
    (text,) = store._conn.execute("SELECT result_json FROM attempts").fetchone()
    return dict(json.loads(text))


def test_a_result_model_refuses_a_key_it_does_not_declare() -> None:
    with pytest.raises(ValidationError, match="verifier_host"):
        SpecpathResult.model_validate({"outcome": "success", "verifier_host": "x"})
    with pytest.raises(ValidationError, match="stray"):
        ProtocolResult.model_validate({"stray": 1})
    with pytest.raises(ValidationError, match="extra"):  # nested parts too
        TakeoverResult.model_validate({"kind": "delivery", "delivery": {"decision": "pass", "extra": 1}})


def test_the_store_writes_the_fields_set_and_reads_back_the_protocols_model(tmp_path: Path) -> None:
    store = _store(tmp_path, "specpath")
    result = SpecpathResult(family="fam", outcome="success", signature=[1, 1], reason="passed", agent_seconds=2.5)
    store.record_attempt(ROW, RowOutcome(RowStatus.SCORED, result=result, reason="passed"))
    assert _stored_json(store) == {"family": "fam", "outcome": "success", "signature": [1, 1], "reason": "passed",
                                   "agent_seconds": 2.5}  # nothing the protocol did not set
    (attempt,) = store.attempts(ROW)
    assert isinstance(attempt.result, SpecpathResult) and attempt.result == result
    outcome = store.selected_outcome(ROW)
    assert outcome is not None and isinstance(outcome.result, SpecpathResult)
    assert outcome.result.row_label() == "success" and outcome.result.row_seconds() == 2.5


def test_an_old_run_with_keys_no_longer_declared_still_opens_upgraded(tmp_path: Path) -> None:
    store = _store(tmp_path, "specpath")
    old = {"family": "fam", "outcome": "failure", "reason": "checks_failed", "agent_seconds": 4.0,
           "verifier_host": "ci-7",  # a key an earlier version stored and no model declares now
           "signature": "10"}  # an older shape of a declared field
    store.record_attempt(ROW, RowOutcome(RowStatus.SCORED, result=old, reason="checks_failed"))
    assert _stored_json(store) == old  # written as it was, as an earlier version wrote it
    store.close()
    with RunStore.open(tmp_path / "specpath", read_only=True) as reopened:
        (attempt,) = reopened.attempts(ROW)
        assert isinstance(attempt.result, SpecpathResult)
        assert attempt.result.stored() == {"family": "fam", "outcome": "failure", "reason": "checks_failed",
                                           "agent_seconds": 4.0}  # the stray key and the bad shape dropped
        (record,) = records(reopened)  # the export reads it through the same model
        assert (record["protocol_outcome"], record["score"], record["seconds"]) == ("failure", 0.0, 4.0)
        assert _stored_json(reopened) == old  # the stored JSON itself is never rewritten


class _Renamed(ProtocolResult):
    """A model whose field an earlier version stored under another name."""

    final_score: float | None = Field(default=None, description="The row's score.")

    @classmethod
    def upgrade(cls, stored: dict[str, Any]) -> dict[str, Any]:
        if "score" in stored:
            stored["final_score"] = stored.pop("score")
        return stored


def test_a_model_maps_a_renamed_key_at_the_upgrade_point() -> None:
    assert read_result(_Renamed, {"score": 0.5, "gone": True}).stored() == {"final_score": 0.5}
    assert read_result(_Renamed, {"final_score": 1.0}).final_score == 1.0


def test_a_plugin_that_declares_no_model_keeps_its_free_form_result(tmp_path: Path) -> None:
    store = _store(tmp_path, "no-such-protocol")  # not installed here: read as it was stored
    store.record_attempt(ROW, RowOutcome(RowStatus.SCORED, result={"outcome": "success", "custom": [1]}))
    (attempt,) = store.attempts(ROW)
    assert isinstance(attempt.result, OpenResult) and attempt.result.stored() == {"outcome": "success",
                                                                                  "custom": [1]}
    assert (attempt.result.row_label(), attempt.result.row_score()) == ("success", 1.0)
