"""Every protocol's `--help` names the estimator of every interval it reports (issue: "Done means")."""

import subprocess
import sys

import pytest


@pytest.mark.parametrize("protocol, estimator", [
    ("takeover", "95% Wilson score intervals"),
    ("specpath", "95% percentile cluster bootstrap over families"),
    ("journey", "Intervals: none"),
    ("pace", "standard error (sample SD / sqrt(n))"),
])
def test_protocol_help_names_the_interval_estimator(protocol: str, estimator: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "reqbench.cli.main", protocol, "--help"], capture_output=True,
                          text=True, timeout=60, env={"COLUMNS": "400", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    assert estimator in " ".join(proc.stdout.split())
