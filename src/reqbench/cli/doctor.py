"""`reqbench doctor RUN_DIR`: verify a run directory's integrity without changing it: the database
passes SQLite's integrity check, and every artifact an attempt references is present and hash-correct."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import typer

from reqbench.cli.consoles import console, marked
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_bytes
from reqbench.core.store.runstore import ARTIFACTS_DIR, DB_NAME, RunStore


def run_problems(run_dir: Path) -> tuple[int, list[str]]:
    """``(blobs checked, problems)`` of a run directory."""
    store = RunStore.open(run_dir, read_only=True)
    problems: list[str] = []
    try:
        check = [r[0] for r in store._query("PRAGMA integrity_check")]
        if check != ["ok"]:
            problems += [f"{DB_NAME}: {line}" for line in check[:20]]
        refs = store._query("SELECT row_key, attempt_no, name, sha256 FROM attempt_artifacts "
                            "ORDER BY row_key, attempt_no, name")
        seen: dict[str, str | None] = {}
        for r in refs:
            sha = r["sha256"]
            if sha not in seen:
                path = store.run_dir / ARTIFACTS_DIR / sha[:2] / sha[2:]
                if not path.is_file():
                    seen[sha] = "missing"
                else:
                    seen[sha] = None if sha256_bytes(path.read_bytes()) == sha else "content does not match its hash"
            if seen[sha]:
                problems.append(f"artifact {r['name']} of {r['row_key']} attempt {r['attempt_no']} "
                                f"({sha[:12]}): {seen[sha]}")
        return len(seen), problems
    finally:
        store.close()


def doctor(run_dir: Path = typer.Argument(..., help="A run directory made by `reqbench run`.")) -> None:
    """Verify a run directory: database integrity, every artifact present and hash-correct (exit 2 if not).

    Example: reqbench doctor runs/demo/specpath-reference
    """
    try:
        checked, problems = run_problems(run_dir)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{DB_NAME} is corrupt or truncated ({exc}); the run cannot be read",
                         file=str(Path(run_dir) / DB_NAME)) from exc
    for problem in problems:
        console.print(marked("✗", "red", problem))
    if problems:
        raise InputError(f"{len(problems)} integrity problem(s) in the run directory", file=str(run_dir))
    console.print(marked("✓", "green", f"{run_dir}: database intact, {checked} artifact(s) present and "
                                          "hash-correct"))
