"""Nothing is created before a run can start (preflight), and a run directory resumes from its own stored
options, never on a changed suite."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from tests.security.redteam import cli, trimmed_suite


def _suite(tmp_path: Path) -> Path:
    return trimmed_suite("specpath", tmp_path / "suite")


def test_missing_agent_binary_exits_2_naming_it_and_creates_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": "/usr/bin:/bin", "REQBENCH_AGENTS_CACHE": str(tmp_path / "no-agents")}
    out = tmp_path / "D"
    proc = cli(["run", str(_suite(tmp_path)), "--agent", "claude-code", "--out", str(out)], env, tmp_path)
    assert proc.returncode == 2
    assert "'claude'" in proc.stderr and "not on PATH" in proc.stderr and "npm install" in proc.stderr
    assert not out.exists()


def test_command_agent_whose_program_is_missing_exits_2(tmp_path: Path) -> None:
    out = tmp_path / "D"
    proc = cli(["run", str(_suite(tmp_path)), "--agent", "command", "--agent-opt",
                "template=no-such-agent-xyz --task {prompt_file}", "--out", str(out)], dict(os.environ), tmp_path)
    assert proc.returncode == 2 and "no-such-agent-xyz" in proc.stderr and not out.exists()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed again when the block ends: nothing listens there


def test_unreachable_model_endpoint_exits_2_and_creates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "D"
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    proc = cli(["run", str(_suite(tmp_path)), "--agent", "llm", "--model", "openai/scripted", "--base-url", url,
                "--out", str(out)], dict(os.environ), tmp_path)
    assert proc.returncode == 2 and url in proc.stderr and "does not answer" in proc.stderr
    assert not out.exists()


def test_llm_judge_without_an_endpoint_exits_2_and_creates_nothing(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("REQBENCH_BASE_URL", "OPENAI_BASE_URL")}
    out = tmp_path / "D"
    suite = trimmed_suite("pace", tmp_path / "pace")  # every PACE case calls its judge
    proc = cli(["run", str(suite), "--agent", "null", "--judge", "llm:m", "--out", str(out)], env, tmp_path)
    assert proc.returncode == 2 and "REQBENCH_BASE_URL" in proc.stderr and not out.exists()


def test_resume_with_the_run_directory_alone_reuses_the_stored_options(tmp_path: Path) -> None:
    suite, out = _suite(tmp_path), tmp_path / "run"
    first = cli(["run", str(suite), "--agent", "reference", "--condition", "direct", "--condition", "split",
                 "--seed", "7", "--out", str(out), "--quiet"], dict(os.environ), tmp_path)
    assert first.returncode == 0, first.stderr
    again = cli(["run", "--resume", str(out), "--quiet"], dict(os.environ), tmp_path)
    assert again.returncode == 0, again.stderr
    assert f"-> {out}" in again.stdout  # --quiet: one headline line naming the run directory
    from reqbench.core.store import RunStore

    with RunStore.open(out, read_only=True) as store:
        assert store.meta.options["seed"] == 7 and store.counts()["attempts"] == 2  # nothing re-ran
        assert store.meta.provenance["agent"]["agent"] == "reference"
        assert store.meta.provenance["suite_hash"]


def test_resume_on_a_changed_suite_is_refused_naming_the_file(tmp_path: Path) -> None:
    suite, out = _suite(tmp_path), tmp_path / "run"
    assert cli(["run", str(suite), "--agent", "null", "--condition", "direct", "--out", str(out), "--quiet"],
               dict(os.environ), tmp_path).returncode == 0
    target = next(p for p in sorted(suite.rglob("*.py")))
    target.write_text(target.read_text() + "\n# changed\n")
    proc = cli(["run", "--resume", str(out)], dict(os.environ), tmp_path)
    assert proc.returncode == 2 and "the suite changed" in proc.stderr
    assert str(target.relative_to(suite)) in proc.stderr


def test_preset_whose_upstream_does_not_answer_exits_2(tmp_path: Path) -> None:
    """A preset that is installed but whose model endpoint is down would hang until its budget ends."""
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 2.1.332\n")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}:/usr/bin:/bin", "REQBENCH_AGENTS_CACHE": str(tmp_path / "none")}
    url = f"http://127.0.0.1:{_closed_port()}"
    out = tmp_path / "D"
    proc = cli(["run", str(_suite(tmp_path)), "--agent", "claude-code", "--model", "claude-sonnet-4-5", "--base-url", url, "--out", str(out)],
               env, tmp_path)
    assert proc.returncode == 2 and url in proc.stderr and not out.exists()


def _keyed_env(**keys: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and not k.endswith("_BASE_URL")}
    return {**env, **keys}


def test_a_wrong_api_key_stops_the_run_in_preflight_naming_its_variable(tmp_path: Path) -> None:
    from tests.support.scripted_openai import ScriptedOpenAI, reply

    out, suite = tmp_path / "D", _suite(tmp_path)
    with ScriptedOpenAI([reply("```reply\ndone\n```")], require_key="right") as srv:
        proc = cli(["run", str(suite), "--agent", "llm", "--model", "openai/scripted", "--base-url",
                    srv.base_url, "--out", str(out)], _keyed_env(REQBENCH_API_KEY="wrong"), tmp_path)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "REQBENCH_API_KEY" in proc.stderr and "HTTP 401" in proc.stderr
        assert "wrong" not in proc.stderr  # the key itself is never printed
        assert srv.chat_requests == [] and not out.exists()  # no row was tried
        assert srv.gets[0]["headers"]["authorization"] == "Bearer wrong"

        missing = cli(["run", str(suite), "--agent", "llm", "--model", "openai/scripted", "--base-url",
                       srv.base_url, "--out", str(out)], _keyed_env(), tmp_path)
        assert missing.returncode == 2 and "no key: set REQBENCH_API_KEY or OPENAI_API_KEY" in missing.stderr

        judge = cli(["run", str(trimmed_suite("pace", tmp_path / "pace")), "--agent", "null", "--judge", "llm:m",
                     "--out", str(out)], _keyed_env(OPENAI_API_KEY="wrong", OPENAI_BASE_URL=srv.base_url), tmp_path)
        assert judge.returncode == 2 and "OPENAI_API_KEY" in judge.stderr and "judge" in judge.stderr


def test_the_right_key_passes_preflight(tmp_path: Path) -> None:
    from tests.support.scripted_openai import ScriptedOpenAI, reply

    with ScriptedOpenAI(lambda body, i: reply("```reply\ndone\n```"), require_key="right") as srv:
        proc = cli(["run", str(_suite(tmp_path)), "--agent", "llm", "--model", "openai/scripted", "--base-url",
                    srv.base_url, "--condition", "direct", "--out", str(tmp_path / "D"), "--quiet"],
                   _keyed_env(REQBENCH_API_KEY="right"), tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert srv.chat_requests
