"""The harness reads and writes files in folders the agent controls (a preset's scratch folder, trees built
from a submission) without following the agent's symlinks: it neither reads its own secrets into the run
nor overwrites a host file as root."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.agents.preset_output import parse_mini
from reqbench.core.agents.registry import make_agent
from reqbench.core.workspace.fileio import UnsafePath, read_regular, write_private


def test_scratch_trajectory_linked_to_a_host_file_is_not_read(tmp_path: Path) -> None:
    host = tmp_path / "host_secret.json"  # a well-formed trajectory, so only the link rule can refuse it
    host.write_text(json.dumps({"info": {"exit_status": "Submitted", "submission": "canary-scratch-link"},
                                "messages": [{"role": "assistant", "content": "canary-scratch-link"}]}))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "trajectory.json").symlink_to(host)
    assert "canary-scratch-link" in repr(parse_mini(host))  # read directly, the file is parsed
    parsed = parse_mini(scratch / "trajectory.json")
    assert "no readable trajectory" in parsed.detail
    assert "canary-scratch-link" not in repr(parsed)


def test_prompt_file_replaced_by_a_link_does_not_overwrite_the_host_file(tmp_path: Path) -> None:
    host_file = tmp_path / "host" / "authorized_keys"
    host_file.parent.mkdir()
    host_file.write_text("the host's own content\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "prompt.md").symlink_to(host_file)
    write_private(scratch / "prompt.md", "next turn's prompt")
    assert host_file.read_text() == "the host's own content\n"
    assert not (scratch / "prompt.md").is_symlink()
    assert (scratch / "prompt.md").read_text() == "next turn's prompt"


def test_links_on_the_way_fifos_and_escapes_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "ok.txt").write_text("fine")
    (root / "linkdir").symlink_to(tmp_path)
    os.mkfifo(root / "pipe")
    assert read_regular(root / "pkg" / "ok.txt", root=root) == b"fine"
    for bad in (root / "linkdir" / "ws" / "pkg" / "ok.txt", root / "pipe", tmp_path / "outside.txt"):
        with pytest.raises(UnsafePath):
            read_regular(bad, root=root)
    assert read_regular(root / "pkg" / "ok.txt", root=root, limit=2) == b"fi"


def test_pace_never_reads_a_submitted_link_to_a_host_file(tmp_path: Path) -> None:
    """PACE builds the candidate tree from the submission outside the sandbox: a submitted
    ``pkg/zz.py -> <host file>`` (or ``-> /proc/self/environ``) is indexed and diffed as a link, never
    read through, so the host file's code and text never reach the evidence a judge sees."""
    from reqbench.protocols.pace.l1.callgraph import RepoIndex
    from reqbench.protocols.pace.repo import changed_files, file_diffs

    host = tmp_path / "host_secret.py"
    host.write_text('def leaked_helper():\n    """canary-pace-link"""\n    return 1\n')
    base, cand = tmp_path / "base", tmp_path / "cand"
    for tree in (base, cand):
        (tree / "pkg").mkdir(parents=True)
        (tree / "pkg" / "mod.py").write_text("def own():\n    return 0\n")
    (cand / "pkg" / "zz.py").symlink_to(host)
    index = RepoIndex.build(cand)
    assert "pkg/zz.py" in index.skipped and "pkg/zz.py" not in index.files
    assert changed_files(base, cand, ["pkg/mod.py", "pkg/zz.py"]) == ["pkg/zz.py"]
    diffs = file_diffs(base, cand, ["pkg/zz.py"])
    assert "canary-pace-link" not in "".join(diffs.values()) and str(host) in "".join(diffs.values())


AIDER_PLANTING_LINKS = r'''
import os, sys
from pathlib import Path
chat = Path(sys.argv[sys.argv.index("--chat-history-file") + 1])
os.symlink(os.environ["HOST_SECRET"], chat)  # its chat history, pointing at a host file
os.symlink(os.environ["HOST_DIR"], ".aider.tags.cache.v4")  # its cache folder, pointing at a host folder
os.symlink(os.environ["HOST_SECRET"], ".aider.tags.cache.v5")
'''


def test_aider_state_links_are_removed_not_followed_and_its_chat_link_is_not_read(tmp_path: Path) -> None:
    """After each turn the harness removes the repo-map cache Aider leaves in the workspace and reads
    its chat history from the scratch folder; both are the agent's to plant as links."""
    host_dir = tmp_path / "host"
    host_dir.mkdir()
    secret = host_dir / "secret.md"
    secret.write_text("#### canary-aider-chat-link\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    exe = tmp_path / "bin" / "aider"
    exe.parent.mkdir()
    exe.write_text(f"#!{sys.executable}\n{AIDER_PLANTING_LINKS}")
    exe.chmod(0o755)
    agent = make_agent("aider", binary=str(exe), env={"HOST_SECRET": str(secret), "HOST_DIR": str(host_dir)})
    result = agent.run(ws, AgentInputs(prompt="x"), Budget(wall_seconds=60))
    assert sorted(p.name for p in ws.iterdir()) == [".git"]  # the links are gone ...
    assert sorted(p.name for p in host_dir.iterdir()) == ["secret.md"]  # ... and nothing they pointed at
    assert secret.read_text() == "#### canary-aider-chat-link\n"
    assert "canary-aider-chat-link" not in json.dumps(result.to_dict())
