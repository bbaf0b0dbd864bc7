"""A journey session with the built-in `llm` agent (real shell loop, persistent history) over loopback HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowStatus, RunOptions
from reqbench.protocols.journey.suite import PROTOCOL

scripted = pytest.importorskip("tests.support.scripted_openai")

STEPS = [
    "I will add both functions.\n```bash\nprintf '\\n\\ndef sub(a, b):\\n    return a - b\\n\\n\\n"
    "def mul(a, b):\\n    return a * b\\n' >> calc.py\n```",
    "Both are in.\n```reply\nAdded sub and mul. Anything else?\n```",
    "Now division.\n```bash\nprintf '\\n\\ndef div(a, b):\\n    if b == 0:\\n        raise ValueError(\"zero\")\\n"
    "    return a / b\\n' >> calc.py\n```",
    "```reply\nDone: div raises ValueError for b == 0.\n```",
]


def test_llm_agent_keeps_one_workspace_and_history_across_user_turns(calc_instance: Path,
                                                                     tmp_path: Path) -> None:
    with scripted.ScriptedOpenAI([scripted.reply(s) for s in STEPS]) as srv:
        options = RunOptions(agent="llm", agent_options={"model": "openai/scripted", "base_url": srv.base_url,
                                                         "api_key": "k", "journey.max_turns": 5})
        out = PROTOCOL.load(calc_instance).run_row(Row("calc", "software-architect", "llm", 0),
                                                   RowContext(options, tmp_path))
        requests = srv.chat_requests
    assert out.status == RowStatus.SCORED, out.detail
    r = out.result.stored()
    assert (r["end_reason"], r["turns"], r["final_f2p"], r["final_p2p"], r["proc_f2p"]) == (
        "all_resolved", 2, 1.0, 1.0, 1.0)
    assert r["assistant_tokens"] == 4 * 15 and r["simulator_tokens"] == 0
    # the second user turn was appended to the same conversation (history kept by the agent's session)
    second = requests[2]["messages"]
    users = [m["content"] for m in second if m["role"] == "user"]
    assert any("calc.sub" in u for u in users) and any("calc.div" in u for u in users)
    transcript = json.loads(out.artifacts["transcript.json"])
    # message text is not a reasoning trace (paper §4.2): no trace from this provider, so none recorded
    assert transcript["turns"][0]["reasoning"] == ""
    assert "+def div(a, b):" in out.artifacts["turn_002.diff"].decode()
