"""Running an exported task's verifier directly, as Harbor runs it but without a container: its
``tests/test.sh`` with ``/tests`` and ``/logs/verifier`` standing for the task's ``tests/`` and a fresh
folder, from a copy of its starting repository (optionally patched, files planted), with this
interpreter's ``python3`` first on PATH; what it wrote is read back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def grade(task: Path, work: Path, patch: str | None = None, plant: dict[str, str] | None = None,
          rewards_before: dict[str, str] | None = None, python3: str | None = None,
          env: dict[str, str] | None = None) -> dict[str, float] | None:
    """The rewards `task`'s ``test.sh`` writes for its starting repository with `patch` applied and `plant`
    (files) written, `rewards_before` (files) already in its ``/logs/verifier`` and, with `python3`, that
    script as the ``python3`` it finds, and `env` added to its environment; None when no reward file is left."""
    repo, out = work / "repo", work / "out"
    shutil.copytree(task / "environment" / "repo", repo)
    out.mkdir()
    if patch:
        subprocess.run(["git", "apply", "-"], input=patch, text=True, cwd=repo, check=True)
    for name, text in {**(plant or {})}.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    for name, text in (rewards_before or {}).items():
        (out / name).write_text(text)
    script = (task / "tests" / "test.sh").read_text().replace("/logs/verifier", str(out)).replace(
        "/tests/", f"{task / 'tests'}/").replace("/tests ", f"{task / 'tests'} ")
    first = Path(sys.executable).parent
    if python3 is not None:
        first = work / "bin"
        first.mkdir()
        (first / "python3").write_text(python3)
        (first / "python3").chmod(0o755)
    environ = {**os.environ, **(env or {}), "PATH": f"{first}{os.pathsep}{os.environ['PATH']}"}
    proc = subprocess.run(["bash", "-c", script], cwd=repo, env=environ, capture_output=True, text=True, timeout=600)
    reward, text = out / "reward.json", out / "reward.txt"
    assert proc.returncode == 0 or not reward.exists(), proc.stderr[-2000:]
    if reward.exists():
        return json.loads(reward.read_text())  # type: ignore[no-any-return]
    return {"reward": float(text.read_text())} if text.exists() else None
