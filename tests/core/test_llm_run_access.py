"""Model clients built inside a run use the run store as their record/replay cache; `--offline` replays only.

Threats guarded: judge or agent answers of a run kept only in memory (a resumed or re-scored run asks
the model again); a caller's explicit cache silently replaced by the run store; an offline run sending
a request; the run's cache or offline mode leaking past the end of the run.
Real loopback server, real SQLite run store.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.agents.llm_agent import make_llm_agent
from reqbench.core.judges.base import JudgeRequest
from reqbench.core.judges.factory import make_judge
from reqbench.core.llm.cache import MemoryResponseCache
from reqbench.core.llm.errors import OfflineCacheMiss
from reqbench.core.llm.run_access import default_cache, offline_run, run_offline
from reqbench.core.store import RunMeta, RunStore, utc_now
from reqbench.core.store.active import activate
from tests.support.scripted_openai import ScriptedOpenAI, reply

REQUEST = JudgeRequest(contract="text_equivalence", instructions="Same fact?",
                       data={"pairs": {"f1": {"predicted": "EUR", "gold": "EUR"}}},
                       candidates=["f1"], labels=["EQUIVALENT", "NOT_EQUIVALENT"])
LABELS = json.dumps({"labels": [{"candidate": "f1", "label": "EQUIVALENT"}]})


@pytest.fixture
def store(tmp_path: Path):
    meta = RunMeta(suite_path="/s", protocol="toy", options={}, created=utc_now(), reqbench_version="0")
    with RunStore.create(tmp_path / "run", meta) as opened:
        yield opened


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch):
    with ScriptedOpenAI(lambda body, i: reply(LABELS if "Same fact?" in json.dumps(body)
                                              else "```reply\ndone\n```")) as srv:
        monkeypatch.setenv("REQBENCH_BASE_URL", srv.base_url)
        monkeypatch.setenv("REQBENCH_API_KEY", "k")
        for name in ("REQBENCH_LLM_CACHE", "REQBENCH_OFFLINE"):
            monkeypatch.delenv(name, raising=False)
        yield srv


def _llm_rows(store: RunStore) -> int:
    return len(store._query("SELECT key FROM cache WHERE kind = 'llm'"))


def test_a_judge_built_in_a_run_records_in_the_run_store_and_a_second_judge_replays(store, server):
    with activate(store):
        assert make_judge("llm:scripted").judge(REQUEST).labels == {"f1": "EQUIVALENT"}
        assert _llm_rows(store) == 1 and len(server.chat_requests) == 1
        again = make_judge("llm:scripted").judge(REQUEST)  # a fresh client: only the store remembers
    assert again.labels == {"f1": "EQUIVALENT"} and again.settings["cached"] is True
    assert len(server.chat_requests) == 1


def test_an_explicit_cache_wins_over_the_run_store(store, server):
    from reqbench.core.judges.llm import make_llm_judge

    own = MemoryResponseCache()
    with activate(store):
        make_llm_judge("scripted", cache=own).judge(REQUEST)
    assert len(own) == 1 and _llm_rows(store) == 0


def test_offline_run_replays_the_llm_agent_and_refuses_an_unrecorded_request(store, server, tmp_path):
    inputs = AgentInputs(prompt="Reply done.", context={"row_key": "t|c|llm|0"})
    with activate(store):
        first = make_llm_agent("scripted").run(tmp_path, inputs, Budget())
        with offline_run(True):
            replayed = make_llm_agent("scripted", offline=False).run(tmp_path, inputs, Budget())
            other = AgentInputs(prompt="Something never asked.", context={"row_key": "t|c|llm|0"})
            with pytest.raises(OfflineCacheMiss, match="no recorded response"):
                make_llm_agent("scripted").run(tmp_path, other, Budget())
    assert first.reply == replayed.reply == "done"
    assert len(server.chat_requests) == 1  # the replay and the refused request sent nothing


def test_run_cache_and_offline_mode_end_with_the_run(store):
    with activate(store), offline_run(True):
        assert default_cache() is not None and run_offline()
    assert default_cache() is None and not run_offline()


def test_a_fresh_draw_asks_again_records_its_own_answer_and_replays_within_the_draw(store, server):
    """A judging repetition must not read the run's recorded answer (judging variance would be 0), and an
    interrupted repetition must not ask twice what it already asked."""
    from reqbench.core.llm.run_access import current_draw, fresh_draw

    with activate(store):
        make_judge("llm:scripted").judge(REQUEST)
        with fresh_draw("rejudge-1"), offline_run(False):  # nested scopes keep the draw
            assert current_draw() == "rejudge-1"
            first = make_judge("llm:scripted").judge(REQUEST)
            again = make_judge("llm:scripted").judge(REQUEST)
        with fresh_draw("rejudge-2"):
            make_judge("llm:scripted").judge(REQUEST)
        replayed = make_judge("llm:scripted").judge(REQUEST)
    assert first.settings["cached"] is False and again.settings["cached"] is True
    assert replayed.settings["cached"] is True and current_draw() == ""
    assert len(server.chat_requests) == 3 and _llm_rows(store) == 3  # the run's, draw 1's, draw 2's
