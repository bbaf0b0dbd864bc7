"""What reqbench writes for the user (run directories, artifacts, exports, HTML reports, built suites) has
the mode the user's umask allows, like any tool's output; scratch an agent or check must not share stays
private whatever the umask. Real CLI subprocesses under two umasks."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from reqbench.core.filemodes import as_umask_allows, umask
from tests.cli.generic_helpers import REPO, cli_cmd, cli_env
from tests.core.toy_protocol import write_suite


def _cli(mask: int, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_cmd(*args), capture_output=True, text=True, timeout=300, env=cli_env(), cwd=REPO,
                          umask=mask)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_outputs_follow_the_umask(tmp_path: Path, mask: int) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": "t1", "value": 1}], conditions=("A",))
    run = tmp_path / "run"
    assert _cli(mask, "run", str(suite), "--agent", "reference", "--out", str(run), "--quiet").returncode == 0
    assert _cli(mask, "export", str(run), "--out", str(tmp_path / "rows.csv")).returncode == 0
    assert _cli(mask, "report", str(run), "--html", str(tmp_path / "r.html")).returncode == 0
    files, dirs = 0o666 & ~mask, 0o777 & ~mask
    assert _mode(run) == dirs and _mode(run / "artifacts") == dirs
    assert _mode(run / "run.sqlite") == files
    blobs = [p for p in (run / "artifacts").rglob("*") if p.is_file()]
    assert blobs and all(_mode(p) == files for p in blobs)
    assert _mode(tmp_path / "rows.csv") == files and _mode(tmp_path / "r.html") == files


def test_umask_is_read_without_changing_it(tmp_path: Path) -> None:
    before = os.umask(0o027)
    try:
        assert umask() == 0o027 and umask() == 0o027
        target = tmp_path / "f"
        target.write_text("x")
        as_umask_allows(target)
        assert _mode(target) == 0o640
    finally:
        os.umask(before)
