"""A key written inside the agent spec is refused like a key given as an option.

The agent spec is stored with the run (``run.sqlite``), in a study's ``study.json``, and from there in every
report, export and viewer page, exactly like the options. Its argument is free text (``command:TEMPLATE``,
``claude-code:MODEL``), so a user can paste a key into it: ``--agent 'command:env OPENAI_API_KEY=sk-...
my-agent'``. Such a spec is refused with exit 2 before anything is created, the refusal names the
environment variable to use instead, and the key is not repeated anywhere, on the command line, in a study
file or for a single ``journey session``.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import yaml

from tests.security.redteam import cli, trimmed_suite


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    return {**env, "PYTHONUNBUFFERED": "1"}


def test_a_key_inside_the_agent_spec_creates_nothing_and_is_never_repeated(tmp_path: Path) -> None:
    canary = f"sk-canary-{secrets.token_hex(20)}"
    suite = trimmed_suite("specpath", tmp_path / "suite")
    specs = [f"command:env OPENAI_API_KEY={canary} true",  # an assignment naming a key, holding one
             "command:true --token abcdef0123456789",  # a flag named like a credential
             f"claude-code:{canary}"]  # a key pasted where the model goes
    forms: list[tuple[list[str], Path]] = []
    for number, spec in enumerate(specs):
        out = tmp_path / f"r{number}"
        forms.append((["run", str(suite), "--agent", spec, "--condition", "direct",
                       "--out", str(out)], out))
    study_file = tmp_path / "keyed.yaml"
    study_file.write_text(yaml.safe_dump({"suite": str(suite), "conditions": ["direct"],
                                          "configurations": [{"name": "k", "agent": specs[0]}]}))
    forms.append((["study", "run", str(study_file), "--out", str(tmp_path / "s1")], tmp_path / "s1"))
    forms.append((["journey", "session", "demo:journey/tasklet", "--persona", "non-coder", "--agent", specs[0],
                   "--transcript", str(tmp_path / "t.json")], tmp_path / "t.json"))
    for args, created in forms:
        proc = cli(args, _env(), tmp_path)
        shown = proc.stdout + proc.stderr
        assert proc.returncode == 2, (args[:4], shown)
        assert "credential" in shown and "_API_KEY" in shown, shown
        assert "--agent" in shown or "agent" in shown
        assert canary not in shown and canary.split("-")[-1] not in shown
        assert not created.exists()
