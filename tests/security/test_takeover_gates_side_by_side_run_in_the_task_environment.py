"""Threat: a check that runs beside another (takeover's target and regression gates, `idle.side_by_side`)
escapes the row's task environment and runs with the host's interpreter and packages, so a submission is
judged against what the host happens to have (a test that should fail for a missing package passes, or
one that needs the environment's package skips). Both side-by-side checks must see the environment."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reqbench.core import idle
from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.execute.environments import task_checks

CACHE = Path(os.environ.get("REQBENCH_TEST_ENV_CACHE", "/var/tmp/reqbench-env-tests"))
BLOCK = {"python": {"requirements": ["wcwidth==0.2.13"]}}
PROBE = Check(name="where", command="{python} -c \"import sys, wcwidth; print('PREFIX', sys.prefix)\"",
              timeout_seconds=60)


@pytest.mark.slow
def test_side_by_side_checks_run_in_the_rows_environment(require_bwrap: None, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    CACHE.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("REQBENCH_CACHE", str(CACHE))
    (tmp_path / "ws").mkdir()
    with task_checks(BLOCK, str(tmp_path / "task.yaml"), tmp_path):
        results = idle.side_by_side([lambda: run_check(PROBE, tmp_path / "ws", None)] * 2)
    for result in results:
        assert result.status is CheckStatus.PASS, result.stdout_tail + result.stderr_tail
        assert "PREFIX /opt/reqbench-env/python" in result.stdout_tail
