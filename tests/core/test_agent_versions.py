"""Pinned agent versions and the per-version install cache (installers replaced by a recorder)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reqbench.core.agents import versions
from reqbench.core.agents.registry import make_agent
from reqbench.core.errors import InputError


def fake_run(calls: list[list[str]]) -> Any:
    def run(argv: list[str], check: bool) -> None:
        calls.append(argv)
        if argv[0] == "npm":
            bin_dir = Path(argv[argv.index("--prefix") + 1]) / "node_modules" / ".bin"
            bin_dir.mkdir(parents=True)
            (bin_dir / "claude").write_text("#!/bin/sh\n")
        elif argv[1:3] == ["-m", "venv"]:
            (Path(argv[3]) / "bin").mkdir(parents=True)
        else:
            (Path(argv[0]).parent / "aider").write_text("#!/bin/sh\n")
    return run


def test_install_goes_to_a_per_version_cache_never_the_user_environment(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(versions.CACHE_ENV, str(tmp_path / "cache"))
    calls: list[list[str]] = []
    binary, _ = versions.install("claude-code", "2.0.0", run=fake_run(calls))
    assert binary == tmp_path / "cache/claude-code/2.0.0/node_modules/.bin/claude"
    assert calls[0][:3] == ["npm", "install", "--prefix"] and calls[0][-1] == "@anthropic-ai/claude-code@2.0.0"
    binary, _ = versions.install("aider", run=fake_run(calls))
    assert binary == tmp_path / f"cache/aider/{versions.PACKAGES['aider'].pinned}/venv/bin/aider"
    assert calls[-1][-1] == f"aider-chat=={versions.PACKAGES['aider'].pinned}"
    assert versions.install("claude-code", "2.0.0", run=fake_run(calls))[1] == 0.0  # cached: nothing run
    # a preset at that version runs the cached binary
    assert make_agent("claude-code@2.0.0").binary == str(tmp_path / "cache/claude-code/2.0.0/node_modules/.bin/claude")
    assert make_agent("claude-code").binary == "claude"  # the pinned version is not cached: PATH


def test_failed_install_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    monkeypatch.setenv(versions.CACHE_ENV, str(tmp_path / "cache"))

    def failing(argv: list[str], check: bool) -> None:
        raise subprocess.CalledProcessError(1, argv)

    with pytest.raises(InputError):
        versions.install("codex", "9.9.9", run=failing)
    assert list((tmp_path / "cache" / "codex").iterdir()) == []
    with pytest.raises(InputError):
        versions.install("llm")


def test_split_spec() -> None:
    assert versions.split_spec("codex@0.171.0") == ("codex", "0.171.0")
    assert versions.split_spec("codex") == ("codex", None)
    with pytest.raises(InputError):
        versions.split_spec("codex@")


def test_a_tool_needing_another_python_is_installed_with_it_or_refused(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(versions.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path / "no-pyenv"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("REQBENCH_PYTHON_3_12", "")
    with pytest.raises(InputError, match="openhands needs Python 3.12.*REQBENCH_PYTHON_3_12"):
        versions.install("openhands", run=fake_run([]))
    assert not (tmp_path / "cache" / "openhands").exists() or not any((tmp_path / "cache" / "openhands").iterdir())
    fake = tmp_path / "py" / "python3.12"  # an interpreter that says it is 3.12
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("REQBENCH_PYTHON_3_12", str(fake))
    calls: list[list[str]] = []

    def run(argv: list[str], check: bool) -> None:
        calls.append(argv)
        if argv[1:3] == ["-m", "venv"]:
            (Path(argv[3]) / "bin").mkdir(parents=True)
        else:
            (Path(argv[0]).parent / "openhands").write_text("#!/bin/sh\n")

    binary, _ = versions.install("openhands", run=run)
    assert calls[0][0] == str(fake) and calls[1][-1] == f"openhands=={versions.PACKAGES['openhands'].pinned}"
    assert binary == tmp_path / f"cache/openhands/{versions.PACKAGES['openhands'].pinned}/venv/bin/openhands"
