"""Aider's preset reads its chat history file into the trajectory and keeps its repo-map cache out of the
submission. A stand-in ``aider`` (a real child process) writes a chat history in Aider's format and the
cache folder Aider writes into the repository root; the real Aider runs in
tests/integration/test_real_aider.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reqbench.core.agents.base import AgentInputs, AgentStatus, Budget
from reqbench.core.agents.preset_output import Parsed, parse_aider_chat
from reqbench.core.agents.registry import make_agent

RAW_CHAT = """
# aider chat started at 2026-12-01 00:08:32

> Aider v0.86.2
> Model: openai/gpt-4o with diff edit format

#### Make greet.py print Goodbye.
> greet.py
> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y

I will change the greeting.

greet.py
```python
<<<<<<< SEARCH
print("Hello")
=======
print("Goodbye")
>>>>>>> REPLACE
```

> Tokens: 1.5k sent, 70 received. Cost: $0.0045 message, $0.0045 session.
> Applied edit to greet.py
"""

CHAT = "\n".join(line + "  " if line.startswith((">", "####")) else line for line in RAW_CHAT.splitlines())
"""Aider ends its own lines with two spaces (a Markdown line break)."""

FAKE_AIDER = r'''
import os, sys
from pathlib import Path
chat = Path(sys.argv[sys.argv.index("--chat-history-file") + 1])
chat.write_text(os.environ["FAKE_CHAT"])
Path(".aider.tags.cache.v4").mkdir()
Path(".aider.tags.cache.v4", "cache.db").write_text("tags")
Path("greet.py").write_text('print("Goodbye")\n')
'''


def test_chat_history_becomes_messages_edits_and_usage() -> None:
    out = Parsed()
    parse_aider_chat(CHAT, out)
    assert [e.kind for e in out.events] == ["note", "message", "note", "message", "file_edit"]
    assert out.events[1].data == {"role": "user", "content": "Make greet.py print Goodbye."}
    answer = out.events[3]
    assert answer.data["role"] == "assistant" and answer.data["content"].startswith("I will change the greeting.")
    assert answer.data["content"].endswith(">>>>>>> REPLACE\n```")
    assert answer.usage is not None and (answer.usage.prompt_tokens, answer.usage.completion_tokens) == (1500, 70)
    assert out.events[4].data == {"path": "greet.py"}
    assert out.reply == answer.data["content"]
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.cost_usd) == (1500, 70, 0.0045)
    assert "Add file to the chat?" in out.events[2].data["output"]


def test_preset_reads_the_chat_file_and_removes_only_the_new_repo_map_cache(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greet.py").write_text('print("Hello")\n')
    (ws / ".aider.tags.cache.v3").mkdir()  # the repository's own, there before the run: kept
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    exe = tmp_path / "bin" / "aider"
    exe.parent.mkdir()
    exe.write_text(f"#!{sys.executable}\n{FAKE_AIDER}")
    exe.chmod(0o755)
    agent = make_agent("aider", binary=str(exe), env={"FAKE_CHAT": CHAT})
    result = agent.run(ws, AgentInputs(prompt="Make greet.py print Goodbye."), Budget(wall_seconds=60))
    assert result.status is AgentStatus.COMPLETED, result.detail
    assert sorted(p.name for p in ws.iterdir()) == [".aider.tags.cache.v3", ".git", "greet.py"]
    assert [e.kind for e in result.trajectory] == ["note", "note", "message", "note", "message", "file_edit"]
    assert result.reply is not None and "<<<<<<< SEARCH" in result.reply
    assert result.trajectory[0].data["self_reported_usage"]["prompt_tokens"] == 1500
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (0, 0)  # no call reached the gateway
