"""Control agents: null changes nothing, reference applies the solution, replay finds stored work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.controls import sanitize_row_key
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError
from reqbench.core.workspace import materialize, tree_hash

ROW = "T1|C2|claude-code|0"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "app.py").write_text("VALUE = 1\n")
    return src


@pytest.fixture
def patch(repo: Path, tmp_path: Path) -> str:
    ws = materialize(repo, tmp_path / "author")
    (ws.path / "app.py").write_text("VALUE = 2\n")
    (ws.path / "added.txt").write_text("new\n")
    return ws.diff()


def fresh(repo: Path, tmp_path: Path, name: str) -> Path:
    return materialize(repo, tmp_path / name).path


def test_null_agent_changes_nothing(repo: Path, tmp_path: Path) -> None:
    ws = fresh(repo, tmp_path, "ws")
    before = tree_hash(ws)
    result = make_agent("null").run(ws, AgentInputs(), Budget())
    assert result.status is AgentStatus.COMPLETED and tree_hash(ws) == before


def test_reference_applies_patch_text_and_path(repo: Path, tmp_path: Path, patch: str) -> None:
    agent = make_agent("reference")
    ws = fresh(repo, tmp_path, "ws")
    result = agent.run(ws, AgentInputs(context={"reference_patch": patch}), Budget())
    assert result.status is AgentStatus.COMPLETED
    assert (ws / "app.py").read_text() == "VALUE = 2\n" and (ws / "added.txt").exists()
    (tmp_path / "ref.patch").write_text(patch)
    ws2 = fresh(repo, tmp_path, "ws2")
    assert agent.run(ws2, AgentInputs(context={"reference_patch": tmp_path / "ref.patch"}),
                     Budget()).status is AgentStatus.COMPLETED
    assert tree_hash(ws2) == tree_hash(ws)


def test_reference_without_solution_is_no_submission(repo: Path, tmp_path: Path) -> None:
    ws = fresh(repo, tmp_path, "ws")
    assert make_agent("reference").run(ws, AgentInputs(), Budget()).status is AgentStatus.NO_SUBMISSION


def test_reference_that_does_not_apply_is_error_and_leaves_workspace(repo: Path, tmp_path: Path,
                                                                    patch: str) -> None:
    ws = fresh(repo, tmp_path, "ws")
    (ws / "app.py").write_text("VALUE = 'drifted'\n")
    before = tree_hash(ws)
    result = make_agent("reference").run(ws, AgentInputs(context={"reference_patch": patch}), Budget())
    assert result.status is AgentStatus.ERROR and "app.py" in result.detail
    assert tree_hash(ws) == before


def test_replay_jsonl_applies_patch_and_replays_reply(repo: Path, tmp_path: Path, patch: str) -> None:
    store = tmp_path / "frozen.jsonl"
    rows = [{"row": ROW, "patch": patch, "reply": "done"},
            {"row": "T2|C2|claude-code|0", "reply": '{"decision": "CLARIFY"}'},
            {"row": "T3|C2|claude-code|0", "patch": "--- a/nope\n+++ b/nope\n@@ -1 +1 @@\n-x\n+y\n"}]
    store.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    agent = make_agent(f"replay:{store}")
    ws = fresh(repo, tmp_path, "ws")
    result = agent.run(ws, AgentInputs(context={"row_key": ROW}), Budget())
    assert result.status is AgentStatus.COMPLETED and result.reply == "done"
    assert (ws / "app.py").read_text() == "VALUE = 2\n"
    # the frozen work came from claude-code; the replay row names the replay agent
    text_only = agent.run(fresh(repo, tmp_path, "ws2"),
                          AgentInputs(context={"row_key": f"T2|C2|replay:{store}|0"}), Budget())
    assert text_only.status is AgentStatus.COMPLETED and text_only.reply == '{"decision": "CLARIFY"}'
    broken = agent.run(fresh(repo, tmp_path, "ws3"), AgentInputs(context={"row_key": "T3|C2|x|0"}),
                       Budget())
    assert broken.status is AgentStatus.ERROR and "nope" in broken.detail
    missing = agent.run(fresh(repo, tmp_path, "ws4"), AgentInputs(context={"row_key": "T9|C2|x|0"}),
                        Budget())
    assert missing.status is AgentStatus.NO_SUBMISSION


def test_replay_directory_of_patch_files(repo: Path, tmp_path: Path, patch: str) -> None:
    store = tmp_path / "patches"
    store.mkdir()
    assert sanitize_row_key(ROW) == "T1_C2_claude-code_0"
    (store / f"{sanitize_row_key(ROW)}.patch").write_text(patch)
    ws = fresh(repo, tmp_path, "ws")
    result = make_agent("replay", arg=str(store)).run(ws, AgentInputs(context={"row_key": ROW}),
                                                     Budget())
    assert result.status is AgentStatus.COMPLETED and (ws / "added.txt").read_text() == "new\n"


@pytest.mark.parametrize(("content", "item"), [
    ('{"row": "a", "patch": "x"}\nnot json\n', "line 2"),
    ('{"patch": "x"}\n', "line 1"),
    ('{"row": "a", "patch": 3}\n', "line 1"),
    ('{"row": "a"}\n{"row": "a"}\n', "line 2"),
])
def test_malformed_replay_store_names_file_and_line(tmp_path: Path, content: str, item: str) -> None:
    store = tmp_path / "bad.jsonl"
    store.write_text(content)
    with pytest.raises(InputError) as err:
        make_agent(f"replay:{store}")
    assert "bad.jsonl" in str(err.value) and item in str(err.value)


def test_unknown_agent_and_missing_store_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown agent"):
        make_agent("no-such-agent")
    with pytest.raises(InputError, match="missing.jsonl"):
        make_agent(f"replay:{tmp_path / 'missing.jsonl'}")
