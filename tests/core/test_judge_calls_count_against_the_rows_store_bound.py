"""An ``llm:`` judge's calls count against the store bound of the row they grade, like the agent's own.

The judge's request quotes what the agent wrote, so an agent can make its row's judge calls large. They go
through the same model client as the built-in agent and the simulated user, recorded under the row being
graded: a row whose judged text is fresh bulk is cut off alone (`ProviderError`, status 413, before the call
is sent), while another row's judge calls beside it are all answered. Real loopback provider, real run store.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest

from reqbench.core.judges.base import JudgeRequest
from reqbench.core.judges.llm import make_llm_judge
from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.errors import ProviderError
from reqbench.core.llm.gateway.scope import row_scope
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.active import activate
from tests.support.scripted_openai import ScriptedOpenAI, reply

BOUND = 2 * 1024**2


def request(predicted: str) -> JudgeRequest:
    return JudgeRequest(contract="text_equivalence", instructions="Does the predicted text state the gold fact?",
                        data={"pairs": {"f1": {"predicted": predicted, "gold": "currency is EUR"}}},
                        candidates=["f1"], labels=["EQUIVALENT", "NOT_EQUIVALENT"])


def test_a_row_whose_judged_text_floods_the_store_is_cut_off_alone(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_ROW_STORE_BYTES", str(BOUND))
    store = RunStore.create(tmp_path / "run", RunMeta(suite_path="/s", protocol="toy", options={},
                                                      created=utc_now(), reqbench_version="0"))
    label = json.dumps({"labels": [{"candidate": "f1", "label": "NOT_EQUIVALENT"}]})
    outcomes: dict[str, list[str]] = {"hostile": [], "honest": []}
    with ScriptedOpenAI(lambda body, i: reply(label)) as provider, activate(store):
        judge = make_llm_judge("openai/judge-model", attempts=1,
                               client=ChatClient(LLMConfig(base_url=provider.base_url, api_key="k", attempts=1)))
        for _ in range(12):
            for row, size in (("hostile", 300_000), ("honest", 300)):
                with row_scope(row):
                    try:
                        judge.judge(request(secrets.token_urlsafe(size)))
                        outcomes[row].append("labelled")
                    except ProviderError as exc:
                        assert exc.status == 413 and "store bound" in str(exc)
                        outcomes[row].append("refused")
        sent = len(provider.chat_requests)
    store.close()
    assert outcomes["honest"] == ["labelled"] * 12
    assert 3 <= outcomes["hostile"].index("refused") and outcomes["hostile"][-1] == "refused"
    assert sent == 12 + outcomes["hostile"].count("labelled")  # a refused judge call is never sent
