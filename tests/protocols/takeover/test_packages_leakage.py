"""Phase-A packages: exact public files, private manifest, and refusal of every kind of leak (paper B.2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json, sha256_text
from reqbench.protocols.takeover.phase_a.leakage import scan_public_files
from reqbench.protocols.takeover.release.build import build_release

from .ledger_factory import event, files, load, messages, requirement, small

LEAKS = {
    "requirement id": "please keep REQ_SECRET_THING in mind",
    "state id": "as in STATE_42 before",
    "event id": "see EVENT_7",
    "construction gold": "the construction_gold says ACT",
    "gold field": "pre_task_gold_state was empty",
    "own state id": "back to LOGIN_FLOW_S001 please",
}


def _project_with_history_text(text: str):
    m = messages("cfcfc")
    m[1]["text"] = text  # message 2 is history for a target at message 5, not an event source
    reqs = [
        requirement(
            "LOGIN_FLOW",
            [
                event("LOGIN_FLOW", 1, 1, "INTRODUCE", m, value_updates={"a": 1}),
                event("LOGIN_FLOW", 2, 5, "MODIFY", m, value_updates={"a": 2}),
            ],
        )
    ]
    return load(*files(m, reqs, [5]))


@pytest.mark.parametrize("kind", list(LEAKS))
def test_public_package_refuses_each_kind_of_internal_leak(kind: str, tmp_path: Path) -> None:
    project = _project_with_history_text(LEAKS[kind])
    out = tmp_path / "out"
    with pytest.raises(InputError, match="leaks"):
        build_release(project, out)
    assert not out.exists() and list(tmp_path.iterdir()) == []  # nothing partial


def test_scanner_finds_leaks_in_instructions_too() -> None:
    leaks = scan_public_files({"instructions.md": "Fill required_evidence_groups.", "task.json": "{}"})
    assert [str(x) for x in leaks] == [
        "public file instructions.md leaks the research-side token 'required_evidence_groups'"
    ]


def test_custom_instructions_with_a_leak_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "instr.md"
    bad.write_text("Never mention construction_gold.\n", encoding="utf-8")
    with pytest.raises(InputError, match="construction_gold"):
        build_release(load(*small()), tmp_path / "out", instructions=bad)


def test_package_files_hold_the_request_and_condition_history_only(tmp_path: Path) -> None:
    result = build_release(load(*small()), tmp_path / "out", input_release="rel-1")
    pkg = tmp_path / "out" / "rq_agent_inputs" / "rel-1" / "P1" / "P1_T001"
    task = json.loads((pkg / "C2" / "public" / "task.json").read_text())
    assert task == {
        "schema_version": "rq-agent-task-v1",
        "task": {"message_id": 5, "speaker": "client", "text": "message 5"},
        "history_file": "history.jsonl",
        "response_schema_file": "response.schema.json",
    }
    c1 = [
        json.loads(x)["message_id"]
        for x in (pkg / "C1" / "public" / "history.jsonl").read_text().splitlines()
    ]
    c2 = [
        json.loads(x)["message_id"]
        for x in (pkg / "C2" / "public" / "history.jsonl").read_text().splitlines()
    ]
    assert c1 == [1, 2, 3, 4] and c2 == [1, 3]  # REQ_A's trajectory; never the target message 5
    assert sorted(p.name for p in (pkg / "C1" / "public").iterdir()) == [
        "history.jsonl",
        "instructions.md",
        "response.schema.json",
        "task.json",
    ]
    manifest = json.loads((pkg / "C2" / "private" / "package_manifest.json").read_text())
    hashes = {n: sha256_text((pkg / "C2" / "public" / n).read_text()) for n in manifest["public_files"]}
    assert manifest["public_files"] == hashes
    assert (
        manifest["package_id"]
        == "pkg_"
        + sha256_json(
            {
                "input_release": "rel-1",
                "target_fingerprint": manifest["target_fingerprint"],
                "condition": "C2",
                "public_hashes": hashes,
            }
        )[:20]
    )
    assert manifest["reasoning_active_rqs"] == ["RQ2", "RQ3"]
    assert len(result.packages) == 2


def test_response_schema_without_the_contract_id_is_refused(tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text('{"$id": "something-else"}', encoding="utf-8")
    with pytest.raises(InputError, match="rq-agent-response-v1"):
        build_release(load(*small()), tmp_path / "out", response_schema=schema)


def test_build_replaces_an_earlier_build_but_never_an_unrelated_directory(tmp_path: Path) -> None:
    project = load(*small())
    out = tmp_path / "out"
    build_release(project, out, input_release="a")
    build_release(project, out, input_release="b")
    assert [p.name for p in (out / "rq_agent_inputs").iterdir()] == ["b"]
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    with pytest.raises(InputError, match="not an earlier build"):
        build_release(project, other)
    assert (other / "notes.txt").read_text() == "keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "out"]
