"""`reqbench agents` lists every registered agent and the exact command of each CLI preset."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from reqbench.core.agents.presets import CLAUDE_FLAGS
from reqbench.core.agents.registry import AGENTS
from reqbench.core.agents.versions import PACKAGES


def test_agents_json_lists_every_registered_agent_with_preset_commands() -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "agents", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert set(rows) == set(AGENTS)
    assert rows["llm"]["description"]
    claude = rows["claude-code"]["commands"]
    assert set(claude) == {"diagnostic", "coding"}
    assert "--permission-prompts none" in claude["diagnostic"] and "--sandbox" not in claude["diagnostic"]
    assert all(flag.strip("'") in claude["diagnostic"] for flag in CLAUDE_FLAGS["diagnostic"] if flag)
    assert rows["aider"]["commands"]["coding"].startswith("aider --yes-always --no-auto-commits")
    assert rows["mini-swe-agent"]["commands"]["coding"].startswith("mini -y --exit-immediately")
    assert rows["claude-code"]["pinned_version"] and rows["claude-code"]["installed"]
    assert rows["llm"]["pinned_version"] is None


def test_agents_table_prints_stage_labels() -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "agents"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "claude-code (diagnostic)" in proc.stdout and "claude-code (coding)" in proc.stdout


def test_agents_says_which_pinned_version_is_installed_where(tmp_path: Path) -> None:
    pinned = PACKAGES["codex"].pinned
    codex = tmp_path / "cache" / "codex" / pinned / "node_modules" / ".bin" / "codex"
    codex.parent.mkdir(parents=True)
    codex.write_text("#!/bin/sh\n")
    (tmp_path / "cache" / "aider" / "0.0.1" / "venv" / "bin").mkdir(parents=True)  # another version only
    (tmp_path / "cache" / "aider" / "0.0.1" / "venv" / "bin" / "aider").write_text("#!/bin/sh\n")
    env = {"PATH": str(tmp_path / "empty"), "REQBENCH_AGENTS_CACHE": str(tmp_path / "cache"), "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "agents", "--json"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert (rows["codex"]["pinned_version"], rows["codex"]["installed"]) == (pinned, f"cache: {codex}")
    assert (rows["aider"]["pinned_version"], rows["aider"]["installed"]) == (PACKAGES["aider"].pinned, "no")
    assert {name: rows[name]["pinned_version"] for name in PACKAGES} == {n: p.pinned for n, p in PACKAGES.items()}
