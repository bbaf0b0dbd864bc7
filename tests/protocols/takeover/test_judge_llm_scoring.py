"""The takeover judge contracts through the real `llm:MODEL` backend over a loopback server: the
request data is enough for a model to label every candidate, a swapped clarification label is
rejected and re-asked, and the scores equal the exact judge's when the model applies the same rule."""

from __future__ import annotations

import json

import pytest

from reqbench.core.judges.base import JudgeRequest
from reqbench.core.judges.exact import ExactJudge
from reqbench.core.judges.factory import make_judge
from reqbench.protocols.takeover.judging.exact_rules import RULES
from reqbench.protocols.takeover.scoring.target import gold_response, score_target
from tests.protocols.takeover.score_helpers import fixture_target

pytest.importorskip("reqbench.core.judges.llm")
from tests.support.gullible import inside  # noqa: E402
from tests.support.scripted_openai import Reply, ScriptedOpenAI, reply  # noqa: E402


def _answer(body: dict, index: int, swap_first_clarification: list[bool]) -> Reply:
    """A 'model' that reads the quoted request data and applies the exact rules to it."""
    user = (
        body["messages"][-1]["content"]
        if index == 0 or "rejected" not in body["messages"][-1]["content"]
        else body["messages"][1]["content"]
    )
    contract = user.split("Contract: ", 1)[1].split("\n", 1)[0]
    data = json.loads(inside({"messages": [{"content": user}]})[0][1])
    labels = sorted({lab for dom in data["label_domains"].values() for lab in dom})
    request = JudgeRequest(contract, "", data, list(data["candidate_map"]), labels, exact_rule=RULES[contract])
    got = ExactJudge().judge(request).labels
    if contract == "clarification_semantic" and swap_first_clarification[0]:
        swap_first_clarification[0] = False
        got = {c: ("VALID" if c.endswith("#issue_relation") else lab) for c, lab in got.items()}
    return reply(json.dumps({"labels": [{"candidate": c, "label": lab} for c, lab in got.items()]}))


@pytest.mark.parametrize("target", ["T001", "T002"])
def test_llm_judge_scores_fixture_gold_like_the_exact_judge(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    inst = fixture_target(target)
    response = gold_response(inst, "C1")
    swap = [True]
    with ScriptedOpenAI(lambda body, i: _answer(body, i, swap)) as srv:
        monkeypatch.setenv("REQBENCH_BASE_URL", srv.base_url)
        monkeypatch.setenv("REQBENCH_API_KEY", "test-key")
        monkeypatch.delenv("REQBENCH_LLM_CACHE", raising=False)
        monkeypatch.delenv("REQBENCH_OFFLINE", raising=False)
        via_llm = score_target(inst, response, "C1", make_judge("llm:openai/judge")).as_json()
        calls = len(srv.chat_requests)
    exact = score_target(inst, response, "C1", ExactJudge()).as_json()
    assert via_llm["status"] == "scored"
    assert {k: via_llm[k] for k in ("rq1", "rq2", "rq3")} == {k: exact[k] for k in ("rq1", "rq2", "rq3")}
    # one request per judge call, plus one re-ask for the swapped clarification label on T001
    assert calls == via_llm["judge_calls"] + (1 if target == "T001" else 0)


def test_an_unreachable_llm_judge_leaves_the_target_pending_not_zero() -> None:
    from reqbench.core.judges.llm import make_llm_judge
    from reqbench.core.llm.client import ChatClient, LLMConfig

    inst = fixture_target("T002")
    with ScriptedOpenAI(lambda body, i: Reply(status=503, body={"error": "down"})) as srv:
        client = ChatClient(LLMConfig(base_url=srv.base_url, api_key="k", attempts=1, sleep=lambda s: None))
        out = score_target(inst, gold_response(inst, "C1"), "C1", make_llm_judge("openai/j", client=client))
    data = out.as_json()
    assert data["status"] == "pending" and data["rq3"]["post_state_score"] is None
    assert any("provider" in reason for reason in data["pending"])
    assert data["rq3"]["decision_correct"] is True  # the decision needs no judge
