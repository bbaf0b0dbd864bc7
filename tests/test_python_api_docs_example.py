"""docs/python-api.md is true: its worked example, run as written (the `reqbench` commands through the real
CLI, the study file written from its block, each Python block executed in order) prints exactly the output
the page shows; and the library's public names are visible (`dir(reqbench)`, `__all__`) while
``import reqbench`` still imports none of them.

Threat guarded: a newcomer copies the example and it fails or prints other numbers; a notebook finds no
public name to start from; an analysis column that pandas reads as ``object``.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.generic_helpers import REPO, cli_env

PAGE = REPO / "docs" / "python-api.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)


def _blocks() -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(PAGE.read_text(encoding="utf-8"))]


@pytest.mark.slow
def test_the_worked_example_prints_what_the_page_shows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pandas", reason="the example's last block needs the pandas extra")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "example"}
    printed = ""
    ran = 0
    for kind, text in _blocks():
        if kind == "bash":
            for line in text.splitlines():
                assert line.startswith("reqbench "), line
                proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", *shlex.split(line)[1:]],
                                      capture_output=True, text=True, timeout=300, env=cli_env(), cwd=tmp_path)
                assert proc.returncode == 0, (line, proc.stderr)
        elif kind == "yaml":
            name = text.splitlines()[0].removeprefix("# ").strip()
            (tmp_path / name).write_text(text, encoding="utf-8")
        elif kind == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(text, f"{PAGE.name} block {ran + 1}", "exec"), namespace)  # noqa: S102
            printed = out.getvalue()
            ran += 1
        elif kind == "text":
            assert printed == text, f"block {ran} of {PAGE.name} printed:\n{printed}"
    assert ran == 3


def test_public_names_are_listed_and_not_imported_by_import_reqbench() -> None:
    probe = ("import json, sys, reqbench; before = sorted(m for m in sys.modules if m.startswith('reqbench.')); "
             "names = dir(reqbench); print(json.dumps({'before': before, 'dir': names, 'all': reqbench.__all__}))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env=cli_env(), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout)
    assert seen["before"] == []  # nothing of the library is imported by `import reqbench`
    for name in ("load_run", "load_study", "Run", "RunRow", "ModelUsage", "Grading", "Study", "run", "report"):
        assert name in seen["dir"] and name in seen["all"], name
    assert "sys" not in seen["dir"]


def test_to_pandas_without_pandas_says_how_to_get_it(tmp_path: Path) -> None:
    """pandas is never a dependency: with it absent (its import blocked), rows() works and to_pandas() is
    one sentence naming the extra."""
    run_dir = tmp_path / "run"
    made = subprocess.run([sys.executable, "-m", "reqbench.cli.main", "run", "demo:specpath/slugkit", "--agent",
                           "null", "--out", str(run_dir), "--quiet", "--condition", "direct"],
                          capture_output=True, text=True, timeout=300, env=cli_env(), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    probe = ("import sys; sys.modules['pandas'] = None\nimport reqbench\n"
             f"run = reqbench.load_run({str(run_dir)!r})\nprint(len(run.rows()), run.rows()[0].outcome)\n"
             "from reqbench.core.errors import InputError\n"
             "try:\n    run.to_pandas()\nexcept InputError as exc:\n    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          env=cli_env(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "1 failure"
    assert "pip install 'reqbench[pandas]'" in proc.stdout
