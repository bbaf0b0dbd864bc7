"""A provider key reaches no output: not the run, not the study, not a report, an export or a viewer page.

Options are stored with a run (``run.sqlite``), a study (``study.json``) and from there in every report, CSV,
export and viewer page, so a key given as an option would be written in plain text everywhere. A key is
read from the environment only (``REQBENCH_API_KEY``, the documented route); given as an option, on the
command line, in a study file or with ``study add``, it is refused with exit 2 before anything is created.

One real run and one real study (the built-in ``llm`` agent against a loopback model server that accepts only
the canary key), then every output is read as bytes: every file under the run and study directories (the
SQLite database and its journal included), ``report --json`` and ``--html``, ``study report --json``,
``--csv`` and ``--html``, the JSONL export, every page the viewer serves over HTTP for both, and each
command's own output.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest
import yaml

from tests.security.redteam import cli, trimmed_suite
from tests.support.scripted_openai import ScriptedOpenAI, reply
from tests.support.viewer_client import logged_in

REPLY = "```reply\ndone\n```"
MAX_PAGES = 80


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    return {**env, "PYTHONUNBUFFERED": "1", **extra}


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]


def _viewer_pages(path: Path, env: dict[str, str], cwd: Path) -> dict[str, bytes]:
    """Every page `reqbench view PATH` links to from its first page (at most `MAX_PAGES`), over HTTP."""
    proc = subprocess.Popen([sys.executable, "-m", "reqbench.cli.main", "view", str(path), "--port", "0"], env=env,
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/\?token=\S+", line)
        assert found, line
        client = logged_in(found.group(0))
        base, pages, todo = found.group(1), {}, deque(["/"])
        while todo and len(pages) < MAX_PAGES:
            page = todo.popleft()
            if page in pages:
                continue
            status, _, body = client.get(base + page)
            assert status == 200, (page, status)
            pages[page] = body
            for link in re.findall(rb'href="(/[^"#]*)"', body):
                target = link.decode().replace("&amp;", "&")
                if target not in pages:
                    todo.append(target)
        return pages
    finally:
        proc.kill()
        proc.wait(timeout=30)


def _leaks(canary: str, outputs: dict[str, bytes]) -> list[str]:
    """Where the canary (or its random part alone) appears."""
    marks = (canary.encode(), canary.split("-")[-1].encode())
    return sorted(where for where, data in outputs.items() if any(m in data for m in marks))


@pytest.mark.slow
def test_a_key_from_the_environment_reaches_no_output_and_an_inline_key_creates_nothing(
        tmp_path: Path, require_bwrap: None) -> None:
    canary = f"sk-canary-{secrets.token_hex(20)}"
    suite = trimmed_suite("specpath", tmp_path / "suite")
    run, study_dir, reports = tmp_path / "run", tmp_path / "study", tmp_path / "reports"
    reports.mkdir()
    env = _env(REQBENCH_API_KEY=canary)
    outputs: dict[str, bytes] = {}

    def command(args: list[str], name: str, environment: dict[str, str] = env) -> subprocess.CompletedProcess[str]:
        proc = cli(args, environment, tmp_path)
        outputs[f"{name} (stdout, stderr)"] = (proc.stdout + proc.stderr).encode()
        return proc

    with ScriptedOpenAI(lambda body, i: reply(REPLY), require_key=canary) as srv:
        agent = ["--agent", "llm", "--model", "openai/scripted", "--base-url", srv.base_url, "--condition", "direct"]
        proc = command(["run", str(suite), *agent, "--out", str(run)], "run")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        study_file = tmp_path / "study.yaml"
        study_file.write_text(yaml.safe_dump({
            "suite": str(suite), "conditions": ["direct"],
            "configurations": [{"name": "llm", "agent": "llm", "model": "openai/scripted",
                                "agent_opts": {"base_url": srv.base_url}}]}))
        proc = command(["study", "run", str(study_file), "--out", str(study_dir)], "study run")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert srv.chat_requests and all(r["headers"]["authorization"] == f"Bearer {canary}"
                                         for r in srv.requests)  # the key was used, from the environment

        # The inline forms: refused, exit 2, nothing created, the key not even repeated in the refusal.
        inline = [(["run", str(suite), *agent, "--agent-opt", f"api_key={canary}", "--out", str(tmp_path / "r1")],
                   tmp_path / "r1"),
                  (["run", str(suite), "--agent", "llm", "--model", "openai/scripted", "--condition", "direct",
                    "--base-url", f"http://user:{canary}@127.0.0.1:{srv.port}/v1", "--out", str(tmp_path / "r2")],
                   tmp_path / "r2")]
        keyed_study = tmp_path / "keyed.yaml"
        keyed_study.write_text(yaml.safe_dump({
            "suite": str(suite), "configurations": [{"name": "k", "agent": "llm", "model": "openai/scripted",
                                                     "agent_opts": {"base_url": srv.base_url, "api_key": canary}}]}))
        inline.append((["study", "run", str(keyed_study), "--out", str(tmp_path / "s1")], tmp_path / "s1"))
        inline.append((["study", "add", str(study_dir), f"name=k2,agent=llm,model=openai/scripted,opt.api_key={canary}"],
                       study_dir / "runs" / "k2"))
        study_json = (study_dir / "study.json").read_bytes()
        requests = len(srv.requests)
        for number, (args, created) in enumerate(inline):
            proc = command(args, f"inline form {number}", _env())
            assert proc.returncode == 2, (args[:2], proc.stdout + proc.stderr)
            assert "REQBENCH_API_KEY" in proc.stderr and "credential" in proc.stderr
            assert not created.exists()
        assert (study_dir / "study.json").read_bytes() == study_json and len(srv.requests) == requests

    for args, name in (
        (["report", str(run), "--json"], "report --json"),
        (["report", str(run), "--html", str(reports / "run.html")], "report --html"),
        (["export", str(run), "--out", str(reports / "rows.jsonl")], "export jsonl"),
        (["study", "report", str(study_dir), "--json", "--csv", str(reports / "study.csv"), "--html",
          str(reports / "study.html")], "study report"),
    ):
        proc = command(args, name)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert b"openai/scripted" in (reports / "study.csv").read_bytes()  # the configuration's options are there

    for root in (run, study_dir, reports):
        outputs.update({str(p): p.read_bytes() for p in _files(root)})
    assert any(name.endswith("run.sqlite") for name in outputs)
    for root in (run, study_dir):
        pages = _viewer_pages(root, env, tmp_path)
        assert len(pages) > 3 and any(b"openai/scripted" in body for body in pages.values())
        outputs.update({f"viewer {root.name}{page}": body for page, body in pages.items()})
    assert _leaks(canary, outputs) == []
