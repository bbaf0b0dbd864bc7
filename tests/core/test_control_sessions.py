"""Control agents serving multi-turn sessions (journey): `null`, `reference` by disclosed steps, `replay` by
stored turn; each hands over its progress (`checkpoint`) and continues from it (`restore`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError
from reqbench.core.workspace import materialize, tree_hash

ROW = "T1|C2|claude-code|0"
BUDGET = Budget(wall_seconds=30)


def _states(tmp_path: Path) -> tuple[Path, str, str]:
    """A base repository and two successive patches (VALUE 1 -> 2 -> 3)."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "app.py").write_text("VALUE = 1\n")
    ws = materialize(base, tmp_path / "author")
    (ws.path / "app.py").write_text("VALUE = 2\n")
    first = ws.diff()
    mid = tmp_path / "mid"
    mid.mkdir()
    (mid / "app.py").write_text("VALUE = 2\n")
    ws3 = materialize(mid, tmp_path / "author3")
    (ws3.path / "app.py").write_text("VALUE = 3\n")
    return base, first, ws3.diff()


def test_null_session_changes_nothing_every_turn(tmp_path: Path) -> None:
    base, _, _ = _states(tmp_path)
    ws = materialize(base, tmp_path / "ws").path
    before = tree_hash(ws)
    session = make_agent("null").start_session(ws)  # type: ignore[attr-defined]
    replies = [session.send(m, BUDGET).reply for m in ("first", "second")]
    assert replies == ["I looked at it but did not change anything."] * 2 and tree_hash(ws) == before


def test_reference_session_applies_the_disclosed_steps_in_order_and_resumes(tmp_path: Path) -> None:
    base, first, second = _states(tmp_path)
    ws = materialize(base, tmp_path / "ws").path
    disclosed: list[str] = []
    steps = [{"id": "S1", "title": "two", "patch": first}, {"id": "S2", "title": "three", "patch": second}]
    inputs = AgentInputs(context={"reference_steps": steps, "disclosed": lambda: list(disclosed)})
    session = make_agent("reference").start_session(ws, inputs=inputs)  # type: ignore[attr-defined]
    disclosed.append("S2")  # S2 builds on S1: nothing may be applied before S1 is asked for
    assert session.send("do S2", BUDGET).reply == "I have nothing new to change for that yet."
    disclosed.append("S1")
    assert session.send("do S1", BUDGET).reply == "Done. I implemented two; three."
    assert (ws / "app.py").read_text() == "VALUE = 3\n"
    state = session.checkpoint()
    again = make_agent("reference").start_session(ws, inputs=inputs)  # type: ignore[attr-defined]
    again.restore(json.loads(json.dumps(state)))
    assert again.send("anything else?", BUDGET).reply == "I have nothing new to change for that yet."


def test_replay_session_sends_back_stored_turns_and_resumes_mid_way(tmp_path: Path) -> None:
    base, first, second = _states(tmp_path)
    store = tmp_path / "replay.jsonl"
    store.write_text("\n".join(json.dumps(e) for e in [
        {"row": ROW, "turn": 1, "patch": first, "reply": "made it two"},
        {"row": ROW, "turn": 2, "patch": second, "reply": "made it three"}]) + "\n")
    ws = materialize(base, tmp_path / "ws").path
    inputs = AgentInputs(context={"row_key": "T1|C2|replay:x|0"})  # found under the agent that made it
    session = make_agent(f"replay:{store}").start_session(ws, inputs=inputs)  # type: ignore[attr-defined]
    assert session.send("one", BUDGET).reply == "made it two"
    state = session.checkpoint()
    resumed = make_agent(f"replay:{store}").start_session(ws, inputs=inputs)  # type: ignore[attr-defined]
    resumed.restore(state)
    assert resumed.send("two", BUDGET).reply == "made it three"
    assert (ws / "app.py").read_text() == "VALUE = 3\n"
    assert resumed.send("three", BUDGET).reply == "I looked at it but did not change anything."


@pytest.mark.parametrize(("lines", "message"), [
    ([{"row": ROW, "turn": 1}, {"row": ROW, "turn": 1}], "appears twice"),
    ([{"row": ROW, "turn": 0}], "positive integer"),
    ([{"row": ROW, "turn": "2"}], "positive integer"),
    ([{"row": ROW}, {"row": ROW, "turn": 2}], "appears twice"),
])
def test_malformed_turns_name_file_and_line(tmp_path: Path, lines: list[dict], message: str) -> None:
    store = tmp_path / "replay.jsonl"
    store.write_text("\n".join(json.dumps(e) for e in lines) + "\n")
    with pytest.raises(InputError, match=message) as info:
        make_agent(f"replay:{store}")
    assert str(store) in str(info.value) and f"line {len(lines)}" in str(info.value)
