"""``REQBENCH_GATEWAY_STORE_QUOTA`` (the run's store quota) is no longer read: the bound is per row
(``REQBENCH_ROW_STORE_BYTES``). Setting it is said once, naming its replacement, instead of being silently
ignored. Real interpreter processes: the notice goes to stderr whatever reads the limits first."""

from __future__ import annotations

import os
import subprocess
import sys

READ_LIMITS = """
import threading
from reqbench.core.llm.gateway.limits import GatewayLimits
threads = [threading.Thread(target=GatewayLimits.from_env) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print(GatewayLimits.from_env().row_store_bytes)
"""


def read_limits(**env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("REQBENCH_")} | env
    return subprocess.run([sys.executable, "-c", READ_LIMITS], env=environ, capture_output=True, text=True,
                          timeout=60, check=True)


def test_setting_the_retired_quota_is_said_once_with_its_replacement() -> None:
    out = read_limits(REQBENCH_GATEWAY_STORE_QUOTA="30M")
    lines = [line for line in out.stderr.splitlines() if "REQBENCH_GATEWAY_STORE_QUOTA" in line]
    assert len(lines) == 1, out.stderr
    assert "no longer read" in lines[0] and "$REQBENCH_ROW_STORE_BYTES" in lines[0] and "per row" in lines[0]
    assert out.stdout.strip() == str(256 * 1024**2)  # the bound is the per-row default, not 30M


def test_nothing_is_said_when_it_is_not_set() -> None:
    out = read_limits(REQBENCH_ROW_STORE_BYTES="30M")
    assert out.stderr == ""
    assert out.stdout.strip() == str(30 * 1024**2)
