"""Without bubblewrap a real agent does not run unless the user says so, and a run that did says so in
every report; control agents (harness code) still run."""

from __future__ import annotations

import os
from pathlib import Path

from tests.security.redteam import cli, trimmed_suite

NO_SANDBOX = {**os.environ, "REQBENCH_SANDBOX": "none"}


def test_command_agent_without_bubblewrap_exits_2_before_creating_anything(tmp_path: Path) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    out = tmp_path / "run"
    proc = cli(["run", str(suite), "--agent", "command", "--agent-opt", "template=sh -c true", "--out", str(out),
                "--condition", "direct"], NO_SANDBOX, tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "bubblewrap" in proc.stderr and "apt-get install bubblewrap" in proc.stderr
    assert "--unsafe-no-sandbox" in proc.stderr
    assert not out.exists() and not (tmp_path / "runs").exists()


def test_unsafe_no_sandbox_runs_and_every_report_says_so(tmp_path: Path) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    out = tmp_path / "run"
    proc = cli(["run", str(suite), "--agent", "command", "--agent-opt", "template=sh -c true", "--out", str(out),
                "--condition", "direct", "--unsafe-no-sandbox", "--quiet"], NO_SANDBOX, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "UNSAFE" in proc.stdout
    report = cli(["report", str(out)], os.environ.copy(), tmp_path)
    assert "UNSAFE" in report.stdout
    html = tmp_path / "r.html"
    cli(["report", str(out), "--html", str(html)], os.environ.copy(), tmp_path)
    assert "UNSAFE" in html.read_text()
    resumed = cli(["run", str(suite), "--agent", "command", "--agent-opt", "template=sh -c true", "--out", str(out),
                   "--condition", "direct", "--resume", "--quiet"], os.environ.copy(), tmp_path)
    assert resumed.returncode == 2 and "unsafe_no_sandbox" in resumed.stderr  # a run stays what it was


def test_control_agents_still_run_without_bubblewrap(tmp_path: Path) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    proc = cli(["run", str(suite), "--agent", "reference", "--out", str(tmp_path / "run"), "--condition", "direct",
                "--quiet"], NO_SANDBOX, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "UNSAFE" not in proc.stdout


def test_regrading_checks_of_a_real_agent_without_bubblewrap_exits_2_before_writing(
        tmp_path: Path, require_bwrap: None) -> None:
    suite = trimmed_suite("specpath", tmp_path / "suite")
    out = tmp_path / "run"
    proc = cli(["run", str(suite), "--agent", "command", "--agent-opt", "template=sh -c true", "--out", str(out),
                "--condition", "direct", "--quiet"], os.environ.copy(), tmp_path)
    assert proc.returncode == 0, proc.stderr
    refused = cli(["regrade", str(out), "--checks"], NO_SANDBOX, tmp_path)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "bubblewrap" in refused.stderr and "--unsafe-no-sandbox" in refused.stderr
    regraded = cli(["regrade", str(out), "--checks"], os.environ.copy(), tmp_path)
    assert regraded.returncode == 0, regraded.stderr
    assert "regrade-1" in regraded.stdout  # the refused regrade left no grading behind
