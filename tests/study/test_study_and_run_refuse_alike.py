"""A study is refused exactly as `reqbench run` refuses the same configuration: both go through one plan of
lanes (`core.execute.lanes`), so a check that holds for a run holds for every configuration of a study --
exit 2, the same rule, nothing created. Real CLI, bundled SpecPath suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cli.generic_helpers import reqbench
from tests.study.helpers import write_study

CASES = [
    pytest.param(("--judge", "exact"), {"judge": "exact"}, "never calls a judge", id="judge-no-row-calls"),
    pytest.param(("--agent-opt", "specpath.no_such_setting=1"), {"agent_opts": {"specpath.no_such_setting": 1}},
                 "no_such_setting", id="unknown-protocol-setting"),
]


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("run_args", "config", "rule"), CASES)
def test_a_study_configuration_is_refused_like_the_same_run(run_args: tuple[str, ...], config: dict[str, Any],
                                                            rule: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    ran = reqbench("run", "demo:specpath", "--agent", "reference", *run_args, "--out", str(run_dir))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert rule in _flat(ran.stderr) and not run_dir.exists()

    spec = write_study(tmp_path / "study.yaml", [{"name": "ok", "agent": "reference"},
                                                 {"name": "bad", "agent": "reference", **config}])
    out = tmp_path / "study"
    studied = reqbench("study", "run", str(spec), "--out", str(out), "--quiet")
    assert studied.returncode == 2, studied.stdout + studied.stderr
    assert rule in _flat(studied.stderr) and "'bad'" in studied.stderr, studied.stderr
    assert not out.exists()


def test_adding_a_configuration_a_run_would_refuse_changes_nothing(tmp_path: Path) -> None:
    spec = write_study(tmp_path / "study.yaml", [{"name": "ok", "agent": "null"}], conditions=["direct"])
    out = tmp_path / "study"
    assert reqbench("study", "run", str(spec), "--out", str(out), "--quiet").returncode == 0
    before = (out / "study.json").read_text(encoding="utf-8")
    added = reqbench("study", "add", str(out), "name=bad,agent=reference,judge=exact")
    assert added.returncode == 2, added.stdout + added.stderr
    assert "never calls a judge" in _flat(added.stderr)
    assert (out / "study.json").read_text(encoding="utf-8") == before and not (out / "runs" / "bad").exists()
