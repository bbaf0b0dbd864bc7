"""The released ReqMemBench fixture (44132019 T001 gold CLARIFY, T002 gold ACT): gold responses reach
the maximum on every metric, empty or invalid responses get the documented failure values, and the
CLI prints the same through `score --json`, `--record` / `replay:`, and `score-run`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.cli.takeover_score import score, score_run
from reqbench.core.errors import InputError
from reqbench.core.judges.exact import ExactJudge
from reqbench.protocols.takeover.scoring.target import gold_response, score_target
from tests.protocols.takeover.score_helpers import STAGE2, fixture_paths, fixture_target

MAX_RQ1 = {"precision": 1.0, "recall": 1.0, "f1": 1.0}


@pytest.mark.parametrize("condition", ["C1", "C2"])
def test_gold_responses_score_the_maximum_on_every_metric(condition: str) -> None:
    for target, gold in (("T001", "CLARIFY"), ("T002", "ACT")):
        inst = fixture_target(target)
        out = score_target(inst, gold_response(inst, condition), condition, ExactJudge()).as_json()
        assert out["status"] == "scored" and out["problems"] == [] and out["pending"] == []
        if condition == "C1":
            assert out["rq1"]["requirement"] == MAX_RQ1 and out["rq1"]["evidence"] == MAX_RQ1
            assert out["consistency"]["consistent"] is True
        else:
            assert out["rq1"] is None
        assert out["rq2"]["attribute_score"] == 1.0 and out["rq2"]["coverage"] == 1.0
        rq3 = out["rq3"]
        assert rq3["gold_decision"] == gold and rq3["decision"] == gold and rq3["decision_correct"] is True
        if gold == "ACT":
            assert (rq3["post_state_score"], rq3["exact"]) == (1.0, 1.0)
            assert (rq3["blocking_issue_f1"], rq3["question_validity"], rq3["strict_clarification"]) == (
                None,
            ) * 3
        else:
            assert (rq3["blocking_issue_f1"], rq3["question_validity"], rq3["strict_clarification"]) == (
                1.0,
            ) * 3
            assert (rq3["post_state_score"], rq3["exact"]) == (None, None)


def test_missing_and_invalid_responses_get_failure_values_not_crashes() -> None:
    for target in ("T001", "T002"):
        inst = fixture_target(target)
        broken = gold_response(inst, "C1")
        broken["requirements"][0]["requirement_ref"] = "REQ_SOMETHING"
        for response in (None, {}, broken):
            out = score_target(inst, response, "C1", ExactJudge()).as_json()
            assert out["status"] == "agent_failure" and out["problems"] and out["response_sha256"] is None
            zero = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
            assert out["rq1"]["requirement"] == zero and out["rq1"]["evidence"] == zero
            assert (out["rq2"]["attribute_score"], out["rq2"]["coverage"]) == (0.0, 0.0)
            rq3 = out["rq3"]
            assert rq3["decision"] is None and rq3["decision_correct"] is False
            if rq3["gold_decision"] == "ACT":
                assert (rq3["post_state_score"], rq3["exact"], rq3["blocking_issue_f1"]) == (0.0, 0.0, None)
            else:
                assert (rq3["blocking_issue_f1"], rq3["question_validity"]) == (0.0, 0.0)
                assert (rq3["strict_clarification"], rq3["post_state_score"]) == (0.0, None)


def test_evidence_outside_the_condition_history_invalidates_a_c2_response() -> None:
    inst = fixture_target("T001")
    response = gold_response(inst, "C1")
    response["requirements"][0]["evidence_message_ids"] = [1]  # visible under C1, hidden under C2
    assert score_target(inst, response, "C1", ExactJudge()).status == "scored"
    out = score_target(inst, response, "C2", ExactJudge()).as_json()
    assert (
        out["status"] == "agent_failure" and "not in this condition's visible history" in out["problems"][0]
    )


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "reqbench.cli.main", "takeover", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_score_json_record_and_replay_agree(tmp_path: Path) -> None:
    rq3, rq1, rq2 = fixture_paths("T002")
    resp = tmp_path / "response.json"
    resp.write_text(json.dumps(gold_response(fixture_target("T002"), "C1")))
    base = [
        "score",
        "--instance",
        str(rq3),
        "--rq1",
        str(rq1),
        "--rq2",
        str(rq2),
        "--response",
        str(resp),
        "--condition",
        "C1",
        "--json",
    ]
    rec = tmp_path / "judge.jsonl"
    first = _cli(*base, "--judge", "exact", "--record", str(rec))
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["status"] == "scored" and out["rq3"]["post_state_score"] == 1.0
    replayed = _cli(*base, "--judge", f"replay:{rec}")
    assert replayed.returncode == 0, replayed.stderr
    again = json.loads(replayed.stdout)
    assert {k: again[k] for k in ("rq1", "rq2", "rq3")} == {k: out[k] for k in ("rq1", "rq2", "rq3")}
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    pending = json.loads(_cli(*base, "--judge", f"replay:{empty}").stdout)
    assert pending["status"] == "pending" and pending["rq2"]["attribute_score"] is None
    assert pending["rq1"]["requirement"] is None and pending["pending"]


def test_cli_score_rejects_bad_input_with_exit_2_and_scores_garbage_as_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rq3, _, _ = fixture_paths("T002")
    resp = tmp_path / "r.json"
    resp.write_text("{}")
    bad_cond = _cli("score", "--instance", str(rq3), "--response", str(resp), "--condition", "C3")
    assert bad_cond.returncode == 2 and "condition must be C1 or C2" in bad_cond.stderr
    opts = {"condition": "C1", "judge": "exact", "rq1": None, "rq2": None, "as_json": True, "record": None}
    with pytest.raises(InputError, match="does not exist"):
        score(instance=rq3, response=tmp_path / "no.json", **opts)
    score(instance=rq3, response=resp, **opts)
    assert json.loads(capsys.readouterr().out)["status"] == "agent_failure"


def test_cli_score_run_aggregates_a_folder_into_the_paper_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture_paths("T001")
    for cond in ("C1", "C2"):
        folder = tmp_path / "responses" / "gold" / cond
        folder.mkdir(parents=True)
        for target in ("T001", "T002"):
            raw = gold_response(fixture_target(target), cond)
            (folder / f"44132019_{target}.json").write_text(json.dumps(raw))
    (tmp_path / "responses" / "silent" / "C1").mkdir(parents=True)
    md = tmp_path / "tables.md"
    proc = _cli("score-run", str(tmp_path), "--instances", str(STAGE2), "--json", "--markdown", str(md))
    assert proc.returncode == 0, proc.stderr
    agg = json.loads(proc.stdout)["aggregates"]["configurations"]
    gold_c1 = agg["gold"]["C1"]
    assert gold_c1["rq1"]["requirement_f1"] == 1.0 and gold_c1["rq2"]["attribute_score"] == 1.0
    assert (
        gold_c1["rq3_decision"]["decision_accuracy"] == 1.0
        and gold_c1["rq3_decision"]["balanced_accuracy"] == 1.0
    )
    assert (
        gold_c1["rq3_content"]["post_state_score"] == 1.0
        and gold_c1["rq3_content"]["strict_clarification"] == 1.0
    )
    assert agg["gold"]["shared"]["shared_act_count"] == 1
    silent = agg["silent"]["C1"]
    assert silent["n_agent_failures"] == 2 and silent["rq3_decision"]["decision_accuracy"] == 0.0
    assert silent["rq2"]["attribute_score"] == 0.0 and silent["rq3_content"]["post_state_score"] == 0.0
    assert "Table 24" in md.read_text()
    score_run(run_dir=tmp_path, instances=STAGE2, judge="exact", as_json=False, markdown=None, record=None)
    assert "Table 23" in capsys.readouterr().out


_ODD_VALUES = [None, True, 0, -1.5, "", "x", [], [1, "a"], [{"a": 1}], {}, {"k": {"n": []}}, [[{}]]]


def _numbers(tree: object) -> list[float]:
    if isinstance(tree, dict):
        return [v for x in tree.values() for v in _numbers(x)]
    if isinstance(tree, list):
        return [v for x in tree for v in _numbers(x)]
    return [float(tree)] if isinstance(tree, int | float) and not isinstance(tree, bool) else []


def _paths(tree: object, prefix: tuple = ()) -> list[tuple]:  # type: ignore[type-arg]
    out = [prefix]
    if isinstance(tree, dict):
        out += [p for k, v in tree.items() for p in _paths(v, (*prefix, k))]
    elif isinstance(tree, list):
        out += [p for i, v in enumerate(tree) for p in _paths(v, (*prefix, i))]
    return out


def test_arbitrary_values_anywhere_in_a_response_never_crash_scoring() -> None:
    import copy
    import random

    rng = random.Random(11)
    for target in ("T001", "T002"):
        inst = fixture_target(target)
        base = gold_response(inst, "C1")
        paths = [p for p in _paths(base) if p]
        for _ in range(60):
            raw = copy.deepcopy(base)
            for path in rng.sample(paths, 3):
                node = raw
                try:
                    for key in path[:-1]:
                        node = node[key]
                    node[path[-1]] = copy.deepcopy(rng.choice(_ODD_VALUES))
                except (KeyError, IndexError, TypeError):
                    continue
            out = score_target(inst, raw, "C1", ExactJudge()).as_json()
            assert out["status"] in ("scored", "agent_failure")
            metrics = {k: out[k] for k in ("rq1", "rq2", "rq3")}
            for block in metrics.values():
                if block:
                    block.pop("n_pred", None), block.pop("n_gold", None), block.pop("n_matched", None)
            assert all(0.0 <= v <= 1.0 for v in _numbers(metrics)), metrics
