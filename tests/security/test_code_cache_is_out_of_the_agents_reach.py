"""Threat: an agent rewrites the table of compiled code (`reqbench.core.code_cache`: dataclass methods,
forward references) so that the next harness process runs the agent's code -- the table is code the
harness executes without compiling it, like the package's byte code.

The table lives in the reqbench cache. An agent's sandbox, even one whose read-only toolchain folders
include the folder holding the cache, neither shows the table nor lets a write reach it; the harness's
next process runs the methods it compiled.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from reqbench.core.sandbox import run_sandboxed

pytestmark = pytest.mark.usefixtures("require_bwrap")


def test_an_agent_can_neither_read_nor_rewrite_the_compiled_code_table(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    cache = shared / "reqbench-cache"
    env = {**os.environ, "REQBENCH_CACHE": str(cache)}
    program = ("import dataclasses, reqbench.core\n"
               "@dataclasses.dataclass\nclass Row:\n    name: str\nprint(repr(Row('a')))\n")
    subprocess.run([sys.executable, "-c", program], env=env, check=True, capture_output=True)
    table = cache / "compiled-code" / f"{sys.implementation.cache_tag}.marshal"
    before = table.read_bytes()
    monkeypatch.setenv("REQBENCH_CACHE", str(cache))
    monkeypatch.setenv("REQBENCH_SANDBOX_RO", str(shared))  # the cache's parent shown as a toolchain folder
    ws = tmp_path / "ws"
    ws.mkdir()
    forged = "import marshal, importlib.util; open(%r, 'wb').write(importlib.util.MAGIC_NUMBER + marshal.dumps({}))"
    proc = run_sandboxed(f"ls -A {table.parent} | wc -l; cat {table} | wc -c; "
                         f"{sys.executable} -c \"{forged % str(table)}\"; echo forged > {table}; "
                         f"rm -f {table}; ls -A {cache} | wc -l", ws, timeout=60)
    counts = proc.stdout.decode().split()
    assert counts[0] == "0" and counts[1] == "0" and counts[-1] == "0", (proc.stdout, proc.stderr)
    assert table.read_bytes() == before
    shown = subprocess.run([sys.executable, "-c", program], env=env, check=True, capture_output=True, text=True)
    assert shown.stdout.strip() == "Row(name='a')"
