"""Text from an agent, a tool or a suite never drives the user's terminal.

A preset's ``--version`` line (read by preflight from the agent's own binary and recorded in provenance),
a suite's task ids and conditions and the harness errors they end up in may carry terminal control
sequences: OSC (set the window title), CSI (clear the screen, colours), the one-byte C1 CSI ``U+009B``,
BEL, DEL, Unicode bidi overrides and line separators. Every command prints them through `cli.consoles`,
which writes each as visible ``\\uXXXX`` text; messages are never read as rich markup, so brackets survive.
Each test runs the real CLI in a subprocess and reads its raw bytes.
"""

from __future__ import annotations

import ast
import errno
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reqbench.core.store.runstore import ARTIFACTS_DIR
from tests.cli.generic_helpers import REPO, cli_env
from tests.core.toy_protocol import write_suite

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\x9b31m\u202eevil\u2066\x7f"
VERSION = f"aider 9.9 {HOSTILE} <img src=x onerror=alert(1)>"
IDS = f"{HOSTILE}\u2028"
RAW = ("\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2028", "\x7f")
SHOWN = "\\u001b]0;pwned\\u0007\\u001b[2J\\u001b[31m\\u009b31m\\u202eevil\\u2066\\u007f"


def reqbench(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    """The real `python -m reqbench ARGS`, raw bytes captured (no colour: not a terminal)."""
    return subprocess.run([sys.executable, "-m", "reqbench", *map(str, args)], capture_output=True,
                          env=env or _plain_env(), cwd=REPO, timeout=300)


def _plain_env() -> dict[str, str]:
    env = cli_env(COLUMNS="300")  # wide enough that no table folds a hostile string
    for name in ("FORCE_COLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE"):
        env.pop(name, None)
    return env


def assert_inert(out: bytes, what: str) -> str:
    """`out` decoded; fails naming each raw control character found."""
    text = out.decode("utf-8")
    found = [repr(c) for c in RAW if c in text]
    assert not found, f"{what} printed {', '.join(found)} raw:\n{text!r}"
    return text


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory, require_bwrap: None) -> dict[str, Any]:
    """A run of a preset whose binary answers ``--version`` with `VERSION`, on a toy suite whose ids and
    condition carry `IDS` (one row scores, one crashes the harness)."""
    root = tmp_path_factory.mktemp("hostile")
    tool = root / "bin" / "aider"
    tool.parent.mkdir()
    tool.write_bytes(b"#!/bin/sh\ncat <<'EOF'\n" + VERSION.encode() + b"\nEOF\n")
    tool.chmod(0o755)
    suite = write_suite(root / "suite", [{"id": f"ok{IDS}", "value": 1}, {"id": f"bad{IDS}", "behaviour": "crash"}],
                        conditions=(f"A{IDS}",))
    run = reqbench("run", suite, "--agent", "aider", "--agent-opt", f"binary={tool}", "--offline",
                   "--out", root / "run")  # not --quiet: the full report prints the recorded version
    assert run.returncode == 0, run.stderr.decode(errors="replace")
    return {"root": root, "run_dir": root / "run", "run": run}


def test_run_prints_the_tools_version_and_the_suites_ids_inert(hostile: dict[str, Any]) -> None:
    out = assert_inert(hostile["run"].stdout, "reqbench run (stdout)")
    assert_inert(hostile["run"].stderr, "reqbench run (stderr)")
    assert SHOWN in out  # shown, not dropped: the reader sees what the tool said
    assert "bad" + SHOWN in out  # the crashed row, in "why rows are not measured"


def test_run_that_measured_nothing_names_its_hostile_row_inert(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": f"bad{IDS}", "behaviour": "crash"}], conditions=("A",))
    run = reqbench("run", suite, "--agent", "reference", "--out", tmp_path / "run", "--quiet")
    assert run.returncode == 3
    err = assert_inert(run.stderr, "reqbench run (stderr)")
    assert "first invalid row bad" + SHOWN in err
    assert_inert(run.stdout, "reqbench run (stdout)")


def test_report_as_tables_json_and_html_keeps_hostile_text_inert(hostile: dict[str, Any], tmp_path: Path) -> None:
    report = reqbench("report", hostile["run_dir"], "--html", tmp_path / "report.html")
    assert report.returncode == 0
    assert SHOWN in assert_inert(report.stdout, "reqbench report")
    assert_inert(report.stderr, "reqbench report (stderr)")

    as_json = reqbench("report", hostile["run_dir"], "--json")
    text = assert_inert(as_json.stdout, "reqbench report --json")
    # the JSON stays valid and says exactly what the tool said
    assert json.loads(text)["run"]["provenance"]["agent"]["version"] == VERSION

    html = (tmp_path / "report.html").read_text()
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html


def test_export_and_doctor_print_hostile_names_inert(hostile: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / f"rows{HOSTILE}.jsonl"
    export = reqbench("export", hostile["run_dir"], "--out", out)
    assert export.returncode == 0 and out.is_file()
    assert SHOWN in assert_inert(export.stdout, "reqbench export")
    assert_inert(export.stderr, "reqbench export (stderr)")

    broken = tmp_path / "broken"
    shutil.copytree(hostile["run_dir"], broken)
    shutil.rmtree(broken / ARTIFACTS_DIR)
    doctor = reqbench("doctor", broken)
    assert doctor.returncode == 2
    assert "ok" + SHOWN in assert_inert(doctor.stdout, "reqbench doctor")
    assert_inert(doctor.stderr, "reqbench doctor (stderr)")


def test_validate_prints_a_suites_hostile_ids_inert(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite", [{"id": IDS, "value": "not a number"}])
    validate = reqbench("validate", suite)
    assert validate.returncode == 2
    assert SHOWN in assert_inert(validate.stdout, "reqbench validate")
    assert_inert(validate.stderr, "reqbench validate (stderr)")


def test_stats_prints_a_suites_hostile_labels_inert(tmp_path: Path) -> None:
    """`reqbench stats` tabulates a suite's own labels (a Code Point `kind` is free text): shown, not obeyed,
    in the tables and in the JSON, which stays valid and decodes to the same text."""
    case = tmp_path / "case"
    shutil.copytree(REPO / "src" / "reqbench" / "examples" / "pace" / "cachetools-slru", case)
    spec = case / "case.yaml"
    spec.write_text(spec.read_text().replace("kind: structure", f"kind: {json.dumps(IDS)}", 1))
    table = reqbench("stats", case)
    assert table.returncode == 0, table.stderr.decode(errors="replace")
    shown = assert_inert(table.stdout, "reqbench stats")
    assert "\\u001b]0;pwned\\u0007" in shown and "\\u2066\\u007f" in shown  # the cell may fold between them
    as_json = reqbench("stats", case, "--json")
    assert as_json.returncode == 0
    rows = [t for t in json.loads(assert_inert(as_json.stdout, "reqbench stats --json"))["stats"]["tables"]
            if t["title"] == "Code Point types"][0]["rows"]
    assert rows[IDS] == {"count": 1, "share": round(1 / 14, 4)}

SGR = re.compile(r"\x1b\[[0-9;]*m")


def test_a_real_terminal_gets_only_the_consoles_own_colours(hostile: dict[str, Any]) -> None:
    """On a terminal rich colours its own labels and table heads (SGR sequences); nothing else of the
    output is a control sequence."""
    env = _plain_env() | {"TERM": "xterm-256color"}
    env.pop("NO_COLOR", None)
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "reqbench", "report", str(hostile["run_dir"])],
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, env=env, cwd=REPO)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError as exc:  # EIO: the child closed the terminal
            assert exc.errno == errno.EIO
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert proc.wait(timeout=120) == 0
    screen = b"".join(chunks).decode("utf-8")
    assert SGR.search(screen), "expected colour on a terminal (is rich detecting it?)"
    assert SHOWN in screen
    assert_inert(SGR.sub("", screen).encode(), "reqbench report on a terminal")


def test_error_messages_print_their_brackets_verbatim(hostile: dict[str, Any], tmp_path: Path) -> None:
    missing = tmp_path / "no[bold]such[/bold] run[link=http://x]"
    report = reqbench("report", missing)
    assert report.returncode == 2
    assert f"{missing}: not a run directory" in report.stderr.decode()

    try:
        import pyarrow  # noqa: F401
    except ModuleNotFoundError:
        export = reqbench("export", hostile["run_dir"], "--out", tmp_path / "rows.parquet")
        assert export.returncode == 2
        assert "pip install 'reqbench[parquet]'" in export.stderr.decode()


PRINTERS = {"print", "echo", "secho"}


def test_every_command_prints_through_the_screen_consoles() -> None:
    """No module of the command line or the report writes to a stream or makes a console of its own:
    `cli.consoles` (and `cli.screen` under it, plain text without rich) is the one way out, so no later
    command can forget the rule."""
    offenders = []
    for folder in ("cli", "report"):
        for path in sorted((REPO / "src" / "reqbench" / folder).rglob("*.py")):
            if path.name == "consoles.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Call):
                    continue
                name = ast.unparse(node.func)
                if (name in PRINTERS or name in {"typer.echo", "click.echo", "typer.secho", "rich.print"}
                        or re.fullmatch(r"sys\.(stdout|stderr)\.write", name) or name.endswith("Console")
                        and name != "ScreenConsole"
                        or any(k.arg == "markup" and ast.unparse(k.value) != "False" for k in node.keywords)):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}: {name}")
    assert not offenders, "\n".join(offenders)
