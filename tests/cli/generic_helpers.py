"""Running the real `reqbench` CLI in a subprocess; the toy protocol comes from the installed plugin
package ``reqbench-toy`` (tests/plugin), found through its entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def cli_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "reqbench.cli.main", *args]


def reqbench(*args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli_cmd(*args), capture_output=True, text=True, timeout=timeout,
                          env=cli_env(**env), cwd=REPO)


def attempt_count(db: Path) -> int:
    """Attempts stored in a run's ``run.sqlite`` so far (0 while it does not exist or is locked), read-only."""
    import sqlite3

    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM attempts").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0
