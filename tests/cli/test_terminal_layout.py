"""Output fits the terminal it is printed on: `reqbench agents` lays its table out to ``COLUMNS`` (a command
line is one unbroken line the terminal folds), and `--help` reflows paragraphs to the width with
conventional usage lines (``SUITE``, ``--agent AGENT``), never Python type labels. Real CLI."""

from __future__ import annotations

import re

import pytest

from tests.cli.generic_helpers import reqbench

TYPE_LABEL = re.compile(r"<(str|bool|int|path|list\[[^\]]*\]|int range|float)>|\{[a-z_]+\}")


def test_agents_table_fits_100_columns_and_commands_stay_whole() -> None:
    proc = reqbench("agents", COLUMNS="100")
    assert proc.returncode == 0, proc.stderr
    table, _, commands = proc.stdout.partition("what each CLI preset runs")
    assert table and commands
    assert max(len(line) for line in table.splitlines()) <= 100
    assert "claude -p" in commands and any(line.startswith("  claude -p ") for line in commands.splitlines())


@pytest.mark.parametrize("args", [("run",), ("study", "add"), ("export",), ("takeover", "score-run"), ()])
def test_help_reflows_to_the_terminal_with_conventional_placeholders(args: tuple[str, ...]) -> None:
    proc = reqbench(*args, "--help", COLUMNS="100")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert not TYPE_LABEL.search(proc.stdout), TYPE_LABEL.search(proc.stdout)
    assert "╭" not in proc.stdout  # no boxes
    if args == ("run",):
        assert lines[0] == "Usage: reqbench run [OPTIONS] SUITE"
        assert any(line.strip().startswith("--agent AGENT") for line in lines)
        # a paragraph is reflowed, not cut where the docstring's lines ended ("file" alone on a line)
        assert not any(line.strip() == "file" for line in lines)
    wide = reqbench(*args, "--help", COLUMNS="160")
    if args == ("run",):  # wider terminal, fewer lines
        assert len(wide.stdout.splitlines()) < len(lines)
