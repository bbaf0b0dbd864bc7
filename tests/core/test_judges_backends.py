"""Judge backends: the exact judge applying a contract's own rule, replaying recorded labels, the judge factory."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.core.judges.base import JudgePending, JudgeRejected, JudgeRequest
from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.factory import make_judge
from reqbench.core.judges.replay import ReplayJudge
from tests.support.judge_requests import ALIGN, classify_request


def _request(contract: str, items: dict[str, dict], fields: dict[str, list[str]]) -> JudgeRequest:
    return classify_request(contract, items, fields)




def test_exact_applies_the_rule_the_request_carries_to_each_candidate() -> None:
    req = _request("toy", {"a": {"x": 1}, "b": {"x": 2}}, {"relation": ["ONE", "OTHER"]})
    req = dataclasses.replace(req, exact_rule=lambda content, field: "ONE" if content["x"] == 1 else "OTHER")
    assert ExactJudge().judge(req).labels == {"a": "ONE", "b": "OTHER"}
    assert req.key() == _request("toy", {"a": {"x": 1}, "b": {"x": 2}}, {"relation": ["ONE", "OTHER"]}).key()


def test_exact_judge_refuses_a_contract_without_a_rule() -> None:
    with pytest.raises(InputError, match="no rule for contract 'mystery'"):
        ExactJudge().judge(_request("mystery", {"a": {}}, {"relation": ["X"]}))


def _record(path: Path, req: JudgeRequest, labels: object, **extra: object) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(
            json.dumps({"request_key": req.key(), "labels": labels, "judge_id": "human", **extra}) + "\n"
        )


def test_replay_answers_recorded_labels_and_last_accepted_record_wins(tmp_path: Path) -> None:
    req = _request("requirement_alignment", {"a": {}, "b": {}}, ALIGN)
    f = tmp_path / "labels.jsonl"
    _record(f, req, {"a": "SAME_ATOM", "b": "UNRELATED"})
    _record(f, req, {"a": "UNRELATED", "b": "SAME_ATOM"})
    _record(f, req, {"a": "MERGED_ATOMS"}, accepted=False)
    resp = ReplayJudge(f).judge(req)
    assert resp.labels == {"a": "UNRELATED", "b": "SAME_ATOM"}
    assert resp.judge_id == "human"


def test_replay_leaves_an_unrecorded_request_pending(tmp_path: Path) -> None:
    f = tmp_path / "labels.jsonl"
    f.write_text("")
    with pytest.raises(JudgePending):
        ReplayJudge(f).judge(_request("requirement_alignment", {"a": {}}, ALIGN))


def test_replay_rejects_a_candidate_labelled_twice_in_the_file(tmp_path: Path) -> None:
    req = _request("requirement_alignment", {"a": {}, "b": {}}, ALIGN)
    f = tmp_path / "labels.jsonl"
    f.write_text(
        '{"request_key": "' + req.key() + '", '
        '"labels": {"a": "SAME_ATOM", "a": "UNRELATED", "b": "UNRELATED"}}\n'
    )
    with pytest.raises(JudgeRejected, match="labelled twice"):
        ReplayJudge(f).judge(req)


def test_replay_rejects_recorded_labels_outside_the_contract(tmp_path: Path) -> None:
    req = _request("requirement_alignment", {"a": {}}, ALIGN)
    f = tmp_path / "labels.jsonl"
    _record(f, req, {"a": "PROBABLY_SAME"})
    with pytest.raises(JudgeRejected, match="not one of"):
        ReplayJudge(f).judge(req)


def test_replay_file_errors_name_the_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text('{"request_key": "k", "labels": {}}\nnot json\n')
    with pytest.raises(InputError, match="line 2"):
        ReplayJudge(f)
    with pytest.raises(InputError, match="does not exist"):
        make_judge(f"replay:{tmp_path / 'missing.jsonl'}")


def test_factory_builds_each_backend_and_rejects_bad_specs(tmp_path: Path) -> None:
    assert make_judge("exact").judge_id == "exact-v1"
    f = tmp_path / "l.jsonl"
    f.write_text("")
    assert make_judge(f"replay:{f}").judge_id == "replay:l.jsonl"
    for bad in ("", "exactly", "replay:", "llm:", "oracle:x"):
        with pytest.raises(InputError):
            make_judge(bad)


def test_judge_specs_come_from_the_registry_and_bad_ones_name_the_rule() -> None:
    from reqbench.core import registry

    assert {"exact", "replay", "llm"} <= set(registry.names("judges"))
    with pytest.raises(InputError, match="needs a model name"):
        make_judge("llm")
    with pytest.raises(InputError, match="unknown judge 'nosuch'"):
        make_judge("nosuch")


def test_factory_builds_the_llm_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_BASE_URL", "http://127.0.0.1:9/v1")
    assert make_judge("llm:openai/judge").judge_id == "llm:openai/judge"


def test_validate_labels_enforces_each_candidates_own_label_field() -> None:
    from reqbench.core.judges.base import validate_labels

    dom = {
        "issue_relation": ["EQUIVALENT", "NOT_EQUIVALENT", "UNCERTAIN"],
        "question_validity": ["VALID", "INVALID", "UNCERTAIN"],
    }
    req = _request("clarification_semantic", {"c0": {}}, dom)
    ok = [("c0#issue_relation", "EQUIVALENT"), ("c0#question_validity", "VALID")]
    assert validate_labels(req, ok) == dict(ok)
    with pytest.raises(JudgeRejected, match="issue_relation labels"):
        validate_labels(req, [("c0#issue_relation", "VALID"), ("c0#question_validity", "VALID")])
    plain = JudgeRequest("x", "i", {}, ["a"], ["L1", "L2"])  # no per-field convention: union only
    assert validate_labels(plain, [("a", "L2")]) == {"a": "L2"}
