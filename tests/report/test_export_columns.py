"""`reqbench export` columns mean one thing whatever the protocol, and `reqbench schema run-result-row` is the
export's exact shape.

Threats guarded: a script that reads ``reason`` as a code in one protocol and as prose in another, or
``outcome`` with nine vocabularies; a schema that documents columns the export does not write (or the
reverse). Real runs of each bundled protocol (control agents), real CLI subprocesses.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

import reqbench
from reqbench.core.execute.outcomes import Reason
from reqbench.core.execute.settings import ProtocolResult
from reqbench.protocols.pace.row_result import PaceResult
from reqbench.protocols.takeover.run.row_result import TakeoverResult
from reqbench.report.rowfacts import OUTCOMES, row_facts
from tests.security.redteam import TRIM, cli, trimmed_suite

pytestmark = pytest.mark.slow  # whole runs or real tools: not in `make test-quick`


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("export-columns")
    out = {}
    for protocol, (_, extra) in TRIM.items():
        suite = trimmed_suite(protocol, root / f"{protocol}-suite")
        conditions = [extra[1]] if extra[0] == "--condition" else []
        judge = extra[1] if extra[0] == "--judge" else ""
        for agent in ("reference", "null"):
            handle = reqbench.run(suite, agent=agent, out=root / f"{protocol}-{agent}", conditions=conditions,
                                  judge=judge)
            out[f"{protocol}-{agent}"] = handle.run_dir
    return out


def _export(run_dir: Path, dest: Path) -> tuple[list[str], list[dict[str, str]], list[dict[str, object]]]:
    env = dict(os.environ)
    for suffix in ("csv", "jsonl"):
        proc = cli(["export", str(run_dir), "--out", str(dest / f"rows.{suffix}")], env, dest)
        assert proc.returncode == 0, proc.stderr
    with open(dest / "rows.csv", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
        header = list(reader.fieldnames or [])
    jsonl = [json.loads(line) for line in (dest / "rows.jsonl").read_text().splitlines()]
    return header, rows, jsonl


def test_schema_properties_are_exactly_the_csv_header_and_the_jsonl_keys(runs: dict[str, Path],
                                                                           tmp_path: Path) -> None:
    proc = cli(["schema", "run-result-row"], dict(os.environ), tmp_path)
    assert proc.returncode == 0, proc.stderr
    properties = list(json.loads(proc.stdout)["properties"])
    header, _, jsonl = _export(runs["specpath-reference"], tmp_path)
    assert header == properties
    assert all(list(record) == properties for record in jsonl)


def test_reason_is_a_taxonomy_code_and_outcome_one_vocabulary_in_every_protocol(runs: dict[str, Path],
                                                                                tmp_path: Path) -> None:
    codes = {r.value for r in Reason}
    seen = set()
    for name, run_dir in runs.items():
        dest = tmp_path / name
        dest.mkdir()
        _, rows, jsonl = _export(run_dir, dest)
        assert rows, name
        for row, record in zip(rows, jsonl, strict=True):
            assert row["reason"] in codes, (name, row["reason"])
            assert row["outcome"] in OUTCOMES, (name, row["outcome"])
            assert record["outcome"] == row["outcome"] and record["reason"] == row["reason"]
            seen.add((name.split("-")[0], name.split("-")[1], row["outcome"]))
    for protocol in TRIM:  # the control agents bracket every suite
        assert (protocol, "reference", "success") in seen, protocol
        assert (protocol, "null", "failure") in seen, protocol


def test_prose_goes_to_detail_and_the_protocol_label_to_its_own_column() -> None:
    result = TakeoverResult.model_validate(
        {"kind": "delivery", "delivery": {"decision": "fail_target", "score": 0, "reason": "target check failed"}})
    facts = row_facts("scored", "checks_failed", result, "checks_failed")
    assert (facts["outcome"], facts["protocol_outcome"], facts["reason"]) == ("failure", "fail_target",
                                                                             "checks_failed")
    assert facts["detail"] == "target check failed"
    pace = row_facts("scored", "evaluated", PaceResult(verdicts={"a": "Covered"}, score=97.0, complete=True))
    assert (pace["outcome"], pace["protocol_outcome"], pace["score"]) == ("success", "complete", 97.0)
    broken = row_facts("invalid", "harness_exception", ProtocolResult(harness_exception=True),
                       "Traceback ...\nValueError: x")
    assert (broken["outcome"], broken["protocol_outcome"], broken["reason"]) == ("invalid", None,
                                                                                "harness_exception")
    assert broken["detail"].endswith("ValueError: x")
