"""Every report says where the rows' code ran: the host, the run's task environment, or the tasks' own."""

from __future__ import annotations

from reqbench.report.run_report import environments_statement


def test_a_run_without_environments_says_host() -> None:
    assert environments_statement(None) == "host (no task environment)"
    assert environments_statement({"run": None, "tasks": {}}) == "host (no task environment)"


def test_the_runs_and_the_tasks_environments_are_named_by_key() -> None:
    a, b = "a" * 64, "b" * 64
    assert environments_statement({"run": a, "tasks": {}}) == f"run {a[:12]}"
    assert environments_statement({"run": None, "tasks": {"t1": a, "t2": a, "t3": b}}) == (
        f"3 task(s) in 2: {a[:12]}, {b[:12]}")
