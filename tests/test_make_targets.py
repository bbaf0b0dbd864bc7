"""`make test-quick` is the unit tests without whole runs and real tools (a quick loop beside `make test`);
`make dist` builds the wheel offline (tests/test_install_instructions.py runs it)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _quick_selection() -> tuple[list[str], str]:
    makefile = (REPO / "Makefile").read_text()
    paths = re.search(r"^QUICK := (.+)$", makefile, re.M)
    marker = re.search(r'^test-quick:.*\n\t.* -m "([^"]+)" \$\(QUICK\)', makefile, re.M)
    assert paths and marker, "Makefile: test-quick needs QUICK paths and a -m selection"
    return paths.group(1).split(), marker.group(1)


def test_test_quick_leaves_out_slow_and_integration_tests() -> None:
    paths, marker = _quick_selection()
    assert "not slow" in marker and "not integration" in marker
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marker, *paths],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    items = [line for line in proc.stdout.splitlines() if "::" in line]
    assert len(items) > 300  # the core's unit tests are in
    slow = ("test_verdict_table.py", "test_presets_mini_swe_agent.py", "test_export_columns.py",
            "test_deep_tree_is_a_limit_not_a_recursion_error")
    assert not [i for i in items if any(s in i for s in slow)]
    assert all(i.startswith(tuple(paths)) for i in items)
