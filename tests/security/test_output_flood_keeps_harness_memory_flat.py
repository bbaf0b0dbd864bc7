"""Red team: an agent floods its stdout and stderr (500 MB each) to blow up the harness's memory
(SECURITY.md, "floods processes, /tmp, a file, output").

The harness drains both pipes as they fill and keeps at most the output cap per stream
(`core.sandbox.pump`), so its resident memory stays flat whatever the agent prints. Measured in a fresh
interpreter: its peak resident set (``VmHWM``, reset after a warm-up run) while a `command` agent writes
1 GB must stay within a wide margin of where it started -- far below what buffering the flood would take.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("require_bwrap")

FLOOD_BYTES = 500 * 1000**2
MARGIN = 150 * 1024**2
"""Two streams capped at 10 MB each, kept as bytes and decoded once: tens of MB, never hundreds."""

MEASURE = r'''
import json, sys
from pathlib import Path
from reqbench.core.agents.base import AgentInputs, Budget
from reqbench.core.agents.registry import make_agent

def status(key):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024

ws = Path(sys.argv[1])
make_agent("command", template="echo warm; echo warm >&2").run(ws, AgentInputs(prompt="x"), Budget(wall_seconds=60))
Path("/proc/self/clear_refs").write_text("5")  # the peak restarts from the current resident set
start = status("VmRSS")
flood = f"head -c {sys.argv[2]} /dev/zero | tr '\\0' x & head -c {sys.argv[2]} /dev/zero | tr '\\0' y >&2; wait"
result = make_agent("command", template=flood).run(ws, AgentInputs(prompt="x"), Budget(wall_seconds=600))
print(json.dumps({"start": start, "peak": status("VmHWM"), "status": result.status.value,
                  "truncated": result.trajectory[0].data["truncated"], "reply": len(result.reply or "")}))
'''


def test_flooding_stdout_and_stderr_leaves_the_harness_memory_flat(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    out = subprocess.run([sys.executable, "-c", MEASURE, str(ws), str(FLOOD_BYTES)], capture_output=True,
                         text=True, timeout=900, check=True)
    seen = json.loads(out.stdout.splitlines()[-1])
    assert seen["status"] == "completed" and seen["truncated"], seen
    assert seen["peak"] - seen["start"] < MARGIN, seen
