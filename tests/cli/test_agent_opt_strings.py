"""``--agent-opt KEY=VALUE`` keeps plain words for string options: ``template=true`` runs the program
``true`` rather than failing on a boolean, with no quoting that the shell would strip anyway."""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.agents.option_text import as_declared
from tests.cli.generic_helpers import reqbench
from tests.security.redteam import trimmed_suite


def _factory(template: str | list[str] | None = None, timeout: float | str | None = None,
             network: bool | str = False, model: str = "", extra: object = None) -> None:
    return None


def test_scalars_become_text_only_where_the_factory_takes_a_string_and_not_the_scalar() -> None:
    given = {"template": True, "timeout": 5, "network": True, "model": 5, "extra": 1.5, "undeclared": False}
    assert as_declared(_factory, given) == {"template": "true", "timeout": 5, "network": True, "model": "5",
                                            "extra": 1.5, "undeclared": False}
    assert as_declared(_factory, {"template": ["a", "b"]}) == {"template": ["a", "b"]}


def test_template_true_runs_the_program_true(tmp_path: Path) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    proc = reqbench("run", str(suite), "--agent", "command", "--agent-opt", "template=true", "--condition",
                    "direct", "--out", str(tmp_path / "run"), "--quiet")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "template must be" not in proc.stderr
    rows = tmp_path / "rows.jsonl"
    assert reqbench("export", str(tmp_path / "run"), "--out", str(rows)).returncode == 0
    records = [json.loads(line) for line in rows.read_text().splitlines()]
    assert records and all(r["status"] == "scored" and r["outcome"] == "failure" for r in records)
