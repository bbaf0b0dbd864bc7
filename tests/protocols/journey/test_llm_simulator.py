"""The llm simulated user against a real OpenAI-compatible HTTP server on 127.0.0.1 with scripted replies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.protocols.journey.env import make_workspace
from reqbench.protocols.journey.metrics import final_f2p, session_metrics
from reqbench.protocols.journey.models import load_instance
from reqbench.protocols.journey.personas import preset
from reqbench.protocols.journey.session import SessionLimits, run_session

from .sessions import as_step_session, reference_session

client_mod = pytest.importorskip("reqbench.core.llm.client")
scripted = pytest.importorskip("tests.support.scripted_openai")


def _msg(message: str, statuses: dict[str, str], confidence: int, disclose: list[str]) -> str:
    return json.dumps({"message": message, "subtask_status": statuses, "confidence": confidence,
                       "disclose": disclose})


OK_REVIEW = json.dumps({"naturalness": 5, "disclosure_pacing": 5, "coherence": 5, "role_boundaries": 5,
                        "revised": None})
SCRIPT = [
    _msg("Hi! Please add calc.sub(a, b).", {"T1": "active", "T2": "hidden", "T3": "hidden"}, 60, ["T1"]),
    OK_REVIEW,
    json.dumps({"tool": "run_tests"}),
    _msg("Subtraction works. Now mul.", {"T1": "done", "T2": "active", "T3": "hidden"}, 70, ["T2"]),
    json.dumps({"naturalness": 3, "disclosure_pacing": 5, "coherence": 5, "role_boundaries": 5,
                "revised": "Thanks, subtraction works! Next I need calc.mul(a, b) for multiplying."}),
    "I think this is going well!",  # not JSON: sent back once for correction
    "```json\n" + _msg("Great. Last one: calc.div(a, b), raising ValueError when b is 0.",
                       {"T1": "done", "T2": "done", "T3": "active"}, 80, ["T3"]) + "\n```",
    OK_REVIEW,
    _msg("Everything works, thanks!", {"T1": "done", "T2": "done", "T3": "done"}, 90, []),
    OK_REVIEW,
]


def test_llm_simulator_drives_a_session_over_loopback_http(calc_instance: Path, tmp_path: Path) -> None:
    from reqbench.protocols.journey.simulators.llm import LLMSimulator

    inst = load_instance(calc_instance)
    with scripted.ScriptedOpenAI([scripted.reply(x) for x in SCRIPT]) as srv:
        client = client_mod.ChatClient(client_mod.LLMConfig(base_url=srv.base_url, api_key="k"))
        sim = LLMSimulator(inst, preset("new-developer"), model="scripted-sim", client=client)
        ws = make_workspace(inst.repo_dir, tmp_path / "workspace")
        session = reference_session(inst, ws, lambda: list(sim.state.disclosed))
        rec = run_session(inst, "new-developer", sim, as_step_session(session), ws, tmp_path,
                          SessionLimits(max_turns=10))
        requests = srv.chat_requests
    assert rec.end_reason == "all_resolved"
    assert len(rec.turns) == 3 and final_f2p(rec, inst) == 1.0
    # the review pass rewrote the second message; the rewrite is what the assistant received
    assert rec.turns[1].user_message == "Thanks, subtraction works! Next I need calc.mul(a, b) for multiplying."
    assert [t.confidence_after for t in rec.turns] == [70, 80, 90]
    # the run_tests tool answered from the hidden tests of the snapshot after turn 1
    tool_result = requests[3]["messages"][-1]["content"]
    assert tool_result.startswith("TOOL RESULT:") and "T1 (subtraction): 1/1 passing" in tool_result
    assert "That reply is not valid" in requests[6]["messages"][-1]["content"]
    assert "New Developer" in requests[0]["messages"][0]["content"]
    # simulator tokens (10 prompt + 5 completion per scripted call) are kept apart from the assistant's
    m = session_metrics(rec, inst)
    assert (rec.simulator_usage.prompt_tokens, rec.simulator_usage.completion_tokens) == (100, 50)
    assert m.simulator_tokens == 150 and m.assistant_tokens == 0 and m.cost_usd == 0.0


def test_llm_simulator_gives_up_after_one_failed_correction(calc_instance: Path, tmp_path: Path) -> None:
    from reqbench.protocols.journey.simulators.llm import LLMSimulator, SimulatorError

    inst = load_instance(calc_instance)
    bad = _msg("hi", {"T1": "active"}, 60, ["T1"])  # statuses must cover every subtask
    with scripted.ScriptedOpenAI([scripted.reply(bad), scripted.reply("still nothing")]) as srv:
        client = client_mod.ChatClient(client_mod.LLMConfig(base_url=srv.base_url, api_key="k"))
        sim = LLMSimulator(inst, preset("non-coder"), model="scripted-sim", client=client)
        from reqbench.protocols.journey.online import run_hidden_tests

        with pytest.raises(SimulatorError, match="after one correction"):
            sim.open(run_hidden_tests(inst, inst.repo_dir))


def test_context_overflow_retry_keeps_the_fence_of_the_tool_results(calc_instance: Path, tmp_path: Path) -> None:
    """The retry at the low watermark rebuilds the first message with the same fence id, so a tool result
    already in the conversation stays fenced under the id the rebuilt message declares."""
    from reqbench.protocols.journey.online import run_hidden_tests
    from reqbench.protocols.journey.simulators.base import Observation
    from reqbench.protocols.journey.simulators.llm import LLMSimulator
    from tests.support.fenced import declared_id, regions

    inst = load_instance(calc_instance)
    base = run_hidden_tests(inst, inst.repo_dir)
    ok = _msg("Thanks.", {"T1": "active", "T2": "hidden", "T3": "hidden"}, 60, ["T1"])
    overflow = scripted.Reply(status=400, body={"error": {"message": "maximum context length exceeded"}})
    script = [scripted.reply(ok), scripted.reply(json.dumps({"tool": "list_files"})), overflow,
              scripted.reply(ok)]
    with scripted.ScriptedOpenAI(script) as srv:
        client = client_mod.ChatClient(client_mod.LLMConfig(base_url=srv.base_url, api_key="k", attempts=1))
        sim = LLMSimulator(inst, preset("new-developer"), model="scripted-sim", client=client, revise=False)
        sim.open(base)
        sim.respond(Observation(turn=1, reply="Done.", changed_files=["calc.py"], tests=base, previous=base,
                                snapshot=inst.repo_dir))
        first, retried = srv.chat_requests[2], srv.chat_requests[3]
    fid = declared_id(first)
    assert fid is not None and declared_id(retried) == fid
    tool_result = retried["messages"][-1]["content"]
    assert tool_result.startswith("TOOL RESULT:") and [lab for lab, _ in regions(tool_result, fid)[1]] == [
        "repository file list"]
