"""The README's install instructions work today: reqbench is not on the package index, so the first
install line is a clone's, `make dist` builds the wheel offline, and ``pip install reqbench`` appears only
beside "once published"."""

from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _install_section() -> str:
    text = (REPO / "README.md").read_text()
    return text.split("## Install", 1)[1].split("\n## ", 1)[0]


def test_the_index_install_line_stands_only_beside_once_published() -> None:
    readme = (REPO / "README.md").read_text()
    for match in re.finditer(r"pip install '?reqbench\b", readme):
        line = readme[readme.rfind("\n", 0, match.start()) + 1:readme.find("\n", match.end())]
        assert "once published" in line.lower(), line
    commands = [line.split("#")[0].strip() for block in re.findall(r"```bash\n(.*?)```", _install_section(), re.S)
                for line in block.splitlines()]
    assert [c for c in commands if c.startswith("pip install")][0] == "pip install ."
    assert "make dist" in commands


@pytest.mark.slow
def test_make_dist_builds_the_wheel_offline(tmp_path: Path) -> None:
    if shutil.which("make") is None or not (REPO / ".venv" / "bin" / "python").exists():
        pytest.skip("needs make and the repository's .venv")
    env = {"PATH": "/usr/bin:/bin", "PIP_NO_INDEX": "1", "HOME": str(tmp_path)}  # no index: offline
    proc = subprocess.run(["make", "-C", str(REPO), "dist", f"DIST={tmp_path / 'dist'}"], capture_output=True,
                          text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = (tmp_path / "dist").glob("reqbench-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
    assert "reqbench/cli/main.py" in names and any(n.startswith("reqbench/examples/specpath/") for n in names)
