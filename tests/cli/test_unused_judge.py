"""A ``--judge`` no row of the run would call is refused before anything is created (exit 2, naming why),
so no run records a judge in its options and provenance that never touched its numbers. Real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.generic_helpers import reqbench


@pytest.mark.parametrize(("suite", "args", "why"), [
    ("demo:specpath", (), "specpath scores every row with its probe tests"),
    ("demo:takeover", ("--condition", "C1", "--condition", "oracle-post"), "takeover judges Phase-A responses only"),
])
def test_a_judge_the_run_never_calls_is_refused_before_anything_starts(suite: str, args: tuple[str, ...],
                                                                        why: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = reqbench("run", suite, "--agent", "reference", "--judge", "exact", *args, "--out", str(out))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "never calls a judge" in proc.stderr and why in proc.stderr and "drop --judge exact" in proc.stderr
    assert "reference check" not in proc.stderr and "admission" not in proc.stderr  # before validation
    assert not out.exists()


def test_a_judged_condition_keeps_its_judge_and_an_unknown_judge_is_named_first(tmp_path: Path) -> None:
    from reqbench.core.execute.judge_use import check_judge_used
    from reqbench.core.execute.types import RunOptions
    from reqbench.protocols.takeover.suite import PROTOCOL

    check_judge_used(PROTOCOL, RunOptions(agent="reference", judge="exact", conditions=("C1", "diag-C1")))
    check_judge_used(PROTOCOL, RunOptions(agent="reference", judge="exact"))  # defaults include diag-*
    proc = reqbench("run", "demo:specpath", "--agent", "reference", "--judge", "exakt", "--out", str(tmp_path / "r"))
    assert proc.returncode == 2 and "did you mean 'exact'?" in proc.stderr
