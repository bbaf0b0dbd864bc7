"""A run store written before model traffic was stored as parts still opens, reads and replays the same.

The fixture (`data/store_v5`) was written by reqbench at schema version 5: request and response bodies as JSON
text in ``model_calls`` and in the record/replay cache. Opening it upgrades the schema; every reader (the
gateway's replay, the cache, the totals the reports use) sees exactly what the old code saw, an offline
client replays the old cache, and new calls written as parts sit beside the old rows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from reqbench.core.llm.client import ChatClient, LLMConfig
from reqbench.core.llm.gateway import StoreRecorder
from reqbench.core.llm.run_access import offline_run
from reqbench.core.store import SCHEMA_VERSION, RunStore
from reqbench.core.store.active import activate

FIXTURE = Path(__file__).parent / "data" / "store_v5"
SYSTEM = "You are a careful engineer. " * 20


def read_calls(run_dir: Path) -> list[dict]:
    calls = [c.to_dict() for c in StoreRecorder(run_dir / "run.sqlite").calls()]
    for call in calls:
        call.pop("latency_ms"), call.pop("started")
    return calls


def test_a_version_5_store_opens_and_reads_exactly_what_it_held(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shutil.copy(FIXTURE / "run.sqlite", run_dir / "run.sqlite")
    expected = json.loads((FIXTURE / "expected.json").read_text())
    with RunStore.open(run_dir) as store:
        assert store._query("PRAGMA user_version")[0][0] == SCHEMA_VERSION == 7
        assert store.cached_items("llm") == expected["cache"]
        assert read_calls(run_dir) == expected["calls"]
        assert StoreRecorder.for_store(store).totals()["row-g"]["upstream"] == 1

        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Say hi."}]
        with activate(store), offline_run(True):  # the old cache answers; nothing can be sent
            old = ChatClient(LLMConfig.from_env(base_url="http://127.0.0.1:9/v1", api_key="k"))
            assert old.complete(messages, model="openai/m").content == "answer 0"
        first_new = len(expected["calls"])
        calls = read_calls(run_dir)
        assert calls[:first_new] == expected["calls"]  # old rows unchanged beside the new one
        assert [c["source"] for c in calls[first_new:]] == ["replay"]
        assert calls[first_new]["request"]["messages"] == messages
        assert calls[first_new]["response"]["choices"][0]["message"]["content"] == "answer 0"
