"""A run whose disk fills says so in one sentence with the command that continues it (as Ctrl-C does), and
a disk already full before the first row says that nothing was kept -- never a traceback, never "the
database is corrupt", never a silently vanished run folder or a half-made one left behind.

For real: the run directory is on a 4 MiB tmpfs mounted in a private mount namespace (``unshare -m``, as
root) for the test's subprocesses only; the disk is filled with a file once the first row is stored (or
before the run starts), then emptied, and ``--resume`` finishes the run.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.generic_helpers import REPO, cli_env

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                                reason="needs root and unshare to mount a size-limited tmpfs")

FILL = "dd if=/dev/zero of=$DISK/filler bs=64k 2>/dev/null; sync"
STORED = ("import sqlite3, sys; c = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True, timeout=5); "
          "sys.exit(0 if c.execute('SELECT COUNT(*) FROM attempts').fetchone()[0] else 1)")


def _in_private_tmpfs(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run `script` (sh) with ``$DISK`` a fresh 4 MiB tmpfs seen only by it, ``$RB`` the reqbench command."""
    disk = tmp_path / "disk"
    disk.mkdir()
    rb = shlex.join([sys.executable, "-m", "reqbench.cli.main"])
    full = f"set -u; DISK={shlex.quote(str(disk))}; RB='{rb}'\nmount -t tmpfs -o size=4m tmpfs $DISK || exit 99\n"
    proc = subprocess.run(["unshare", "-m", "sh", "-c", full + script], capture_output=True, text=True,
                          timeout=300, env=cli_env(REQBENCH_SCRATCH=str(tmp_path / "scratch")), cwd=REPO)
    if proc.returncode == 99:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    return proc


def test_a_disk_that_fills_mid_run_names_the_resume_command_and_resume_finishes(tmp_path: Path) -> None:
    err = tmp_path / "first.err"
    proc = _in_private_tmpfs(tmp_path, f"""
$RB run demo:specpath/slugkit --agent reference --out $DISK/run --quiet 2>{err} >/dev/null & pid=$!
i=0; until [ -f $DISK/run/run.sqlite ] && {shlex.quote(sys.executable)} -c "{STORED}" $DISK/run/run.sqlite; do
  i=$((i+1)); [ $i -gt 600 ] && break; sleep 0.1; done
{FILL}
wait $pid; echo "first=$?"
rm $DISK/filler
$RB run --resume $DISK/run --quiet; echo "resumed=$?"
""")
    first = err.read_text()
    assert "first=2" in proc.stdout, (proc.stdout, first, proc.stderr)
    assert "Traceback" not in first and "corrupt" not in first, first
    lines = first.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: the disk holding ") and " is full; finished rows " \
        "are saved there" in lines[0], first
    assert lines[1].strip() == f"reqbench run --resume {tmp_path / 'disk' / 'run'}"
    assert "resumed=0" in proc.stdout and "(7/7 rows scored)" in proc.stdout, (proc.stdout, proc.stderr)


def test_a_disk_full_before_the_first_row_says_nothing_was_kept_and_leaves_nothing(tmp_path: Path) -> None:
    proc = _in_private_tmpfs(tmp_path, f"""{FILL}
$RB run demo:specpath/slugkit --agent reference --out $DISK/run --quiet; echo "rc=$?"
echo "left:"; ls -A $DISK | grep -v '^filler$'
""")
    assert "rc=2" in proc.stdout, (proc.stdout, proc.stderr)
    assert proc.stdout.split("left:", 1)[1].strip() == ""  # no run folder, no half-made one
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "is full before the first row finished; nothing was kept" in proc.stderr


def test_a_study_whose_disk_fills_names_its_resume_command_and_resume_finishes(tmp_path: Path) -> None:
    study = tmp_path / "study.yaml"
    study.write_text("suite: demo:specpath/slugkit\nconfigurations:\n  - {name: ref, agent: reference}\n"
                     "  - {name: nothing, agent: \"null\"}\n", encoding="utf-8")
    err = tmp_path / "first.err"
    proc = _in_private_tmpfs(tmp_path, f"""
$RB study run {study} --out $DISK/sp --quiet 2>{err} >/dev/null & pid=$!
i=0; until [ -f $DISK/sp/runs/ref/run.sqlite ] && {shlex.quote(sys.executable)} -c "{STORED}" $DISK/sp/runs/ref/run.sqlite
do i=$((i+1)); [ $i -gt 600 ] && break; sleep 0.1; done
{FILL}
wait $pid; echo "first=$?"
rm $DISK/filler
$RB study run --resume $DISK/sp --quiet; echo "resumed=$?"
""")
    first = err.read_text()
    assert "first=2" in proc.stdout, (proc.stdout, first, proc.stderr)
    assert "Traceback" not in first and first.strip().splitlines()[-1].strip() == \
        f"reqbench study run --resume {tmp_path / 'disk' / 'sp'}", first
    assert "resumed=0" in proc.stdout and "ref: 7 scored" in proc.stdout and "nothing: 7 scored" in proc.stdout, \
        (proc.stdout, proc.stderr)
