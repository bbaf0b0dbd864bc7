"""Checks: a command run against a *snapshot* of a workspace, with hidden tests, mapped to a status.

A check never runs in the agent's workspace: it runs on a fresh copy (so it can neither be disturbed by
nor leak anything into the agent's files), with the hidden directory (tests the agent never had) readable
at ``{hidden}``, in the sandbox, without network. Before it runs, the files that steer a test runner
(``DEFAULT_PROTECTED`` plus the check's own ``protected`` globs) are put back as they are in the base
tree -- restored when changed, deleted when new -- and `CheckResult.protected_touched` lists them.

**Plain commands** (``python -m compileall``, a custom verifier) follow ReqMemBench appendix C.2: exit 0
is PASS, exit 1 is FAIL, any other exit code, a start-up failure or a timeout is HARNESS_ERROR -- an
infrastructure problem, never an agent failure, re-evaluated on the frozen submission later -- except a
command the kernel killed at the sandbox's memory cap: the code under test crashed, a FAIL with every
probe failed (re-running it would only exhaust the memory again). Per-probe
results of a plain command come from a file in the harness-owned output directory (``probes: junit`` at
``{junit}`` or ``probes: json``); such a file is exactly as trustworthy as the command that writes it.

**pytest checks** use the ``{pytest}`` placeholder: the harness's interpreter in safe-path mode
(``-P``), with the guard plugin (``checkguard/reqbench_guard.py``) loaded before any submission code,
plugin autoloading and the cache off, and a harness-side ini file (``-c``) so no pytest configuration is
read from the workspace. The workspace's import roots (`Check.pythonpath`) join ``sys.path`` only after
pytest and the guard are imported, so nothing submitted can shadow either. ``{python} -m pytest`` is
upgraded to ``{pytest}``; any other way of starting pytest is a validation error.

In a pytest check the submission's own code runs in the test process, so the exit code proves nothing
(``os._exit(0)``, rewritten report objects, a forged JUnit file all produce a green exit). The status
comes from positive evidence only: the guard's records, read from a pipe the harness drains (see
`judge_pytest`). This refines C.2 where the paper's rule would let a submission choose its own label:
an exit the submission caused -- a collection/import error (pytest exit 2), an internal error (3), no
tests (5), a process that ended before the session finished -- is the agent's failure (FAIL), not
HARNESS_ERROR; otherwise a broken submission would stay *pending* forever instead of counting as a
failure. HARNESS_ERROR remains for what the harness could not measure: the runner never started (no
``start`` record), a timeout before the runner started (C.2 lists check timeouts as infrastructure errors; a
timeout while the submission's tests run is the agent's fixed-budget failure, as in SpecPath), or a usage error
(exit 4) before pytest reached the first point where submission code can run.

An exit code other than 0 or 1 after the process ran (C.2's HARNESS_ERROR by exit code) is decided by one
re-check of the same submission (`run_check_settled`, the table in `recheck`): the same code again is the
submission's FAIL.

Nothing a command prints is evidence: printing "PASSED" changes nothing.
"""

from reqbench.core.checks.evidence import GuardEvidence, expected_probes, judge_pytest, parse_guard_records
from reqbench.core.checks.models import (
    DEFAULT_PROTECTED,
    GUARD_DIR,
    PLACEHOLDERS,
    Check,
    CheckResult,
    CheckStatus,
    render_command,
    status_from_exit,
    upgrade_pytest_command,
)
from reqbench.core.checks.protected import glob_regex, restore_protected
from reqbench.core.checks.recheck import run_check_settled
from reqbench.core.checks.reports import junit_node_id, read_junit, read_probe_json
from reqbench.core.checks.run import FixedPaths, run_check

__all__ = ["DEFAULT_PROTECTED", "GUARD_DIR", "PLACEHOLDERS", "Check", "CheckResult", "CheckStatus", "FixedPaths",
           "GuardEvidence",
           "expected_probes", "glob_regex", "judge_pytest", "junit_node_id", "parse_guard_records", "read_junit",
           "read_probe_json", "render_command", "restore_protected", "run_check", "run_check_settled",
           "status_from_exit", "upgrade_pytest_command"]
