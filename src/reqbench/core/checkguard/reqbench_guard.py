"""reqbench_guard: a pytest plugin that reports per-test outcomes to the harness through a pipe.

Standalone on purpose (it imports nothing from reqbench, only the standard library and pytest >= 7, and
runs on any Python 3 a task environment brings): the harness compiles this file into a
harness-owned read-only directory, puts that directory on ``PYTHONPATH`` and starts pytest through
``reqbench_pytest``, which imports this module first and registers it as a plugin object before pytest
parses its arguments -- before any conftest, test module or code of the submission is imported. (It also
works as ``-p reqbench_guard``.)

The harness passes two inherited file descriptors in ``REQBENCH_GUARD_FDS`` ("<write>:<token>"): the write
end of a pipe it drains, and the read end of a pipe holding a per-run random token. At import the plugin
removes the variable, reads the token and closes that descriptor, so code running later cannot learn the
token from the environment or the pipe. Only then does it put the workspace's import roots
(``REQBENCH_GUARD_PYTHONPATH``) on ``sys.path``. Every record is one JSON line (a single ``os.write``) carrying the
token:

* ``start`` at import; ``args`` when pytest has read its command line and is about to load the initial
  conftests (the first point where code of the submission may run); ``conftests`` when they loaded;
  ``configured`` once pytest accepted the full command line (so an exit 4 between the two is a usage
  error of the harness's command);
* ``item`` for every collected test, ``collect_error`` for every failed collector;
* ``phase`` for each of setup/call/teardown of a test, computed from the raw ``CallInfo.excinfo`` (for a
  unittest ``TestCase`` method, the failures its result object recorded) in a hookwrapper around
  ``pytest_runtest_makereport`` -- never from the report objects, which code under test
  can rewrite;
* ``tampered`` when pytest's report machinery was replaced during the run;
* ``finish`` at ``pytest_sessionfinish`` with the session's exit status.

A pipe can be appended to but never rewound: extra lines written by the submission cannot erase the
records above, and the harness treats a test as passed only if every record for it passed.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import _pytest.reports
import _pytest.runner
import pytest

_SPEC = os.environ.pop("REQBENCH_GUARD_FDS", "")
_FD = -1
_TOKEN = ""
if _SPEC:
    _w, _, _r = _SPEC.partition(":")
    _FD = int(_w)
    if _r:
        _chunks = []
        while True:
            _chunk = os.read(int(_r), 4096)
            if not _chunk:
                break
            _chunks.append(_chunk)
        os.close(int(_r))
        _TOKEN = b"".join(_chunks).decode("ascii", "replace").strip()

_WATCHED = (_pytest.reports.TestReport, _pytest.reports.CollectReport, _pytest.reports.BaseReport,
            _pytest.runner.CallInfo)
_ORIGINAL_NAMES: dict[tuple[str, str], Any] = {
    (m.__name__, n): getattr(m, n) for m in (_pytest.reports, _pytest.runner)
    for n in ("TestReport", "CollectReport", "CallInfo") if hasattr(m, n)}
_ORIGINAL_ATTRS: dict[str, dict[str, Any]] = {c.__qualname__: dict(vars(c)) for c in _WATCHED}
_dumps = json.dumps
_write = os.write


def _emit(event: str, **fields: Any) -> None:
    if _FD < 0:
        return
    line = _dumps({"t": _TOKEN, "e": event, **fields}, separators=(",", ":")) + "\n"
    data = line.encode("utf-8", "replace")
    try:
        while data:
            data = data[_write(_FD, data):]
    except OSError:
        pass  # the channel was closed or replaced: the missing records speak for themselves


# Safe path: nothing of the working directory comes before the guard on sys.path -- ``-P`` (Python >= 3.11),
# or the runner started as a script from the guard's own folder, which Python puts first instead.
_HERE = os.path.dirname(os.path.realpath(__file__))
_emit("start", pid=os.getpid(), safe_path=bool(getattr(sys.flags, "safe_path", False)) or (
    bool(sys.path) and os.path.realpath(sys.path[0] or ".") == _HERE and os.path.realpath(os.getcwd()) != _HERE))

# The code under test becomes importable only now, after pytest and this plugin are imported (pytest's
# own ``pythonpath`` ini option would put it on sys.path *before* ``-p`` plugins load, letting a
# submitted ``reqbench_guard.py`` replace this file).
for _entry in reversed([p for p in os.environ.pop("REQBENCH_GUARD_PYTHONPATH", "").split(os.pathsep) if p]):
    sys.path.insert(0, _entry)


def _outcome(excinfo: Any) -> str:
    if excinfo is None:
        return "passed"
    if isinstance(excinfo.value, pytest.skip.Exception):
        return "skipped"
    return "failed"


@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Any:
    _emit("args")
    outcome = yield
    if outcome.excinfo is None:
        _emit("conftests")


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: Any) -> None:
    _emit("configured")


def _raw_excinfo(item: Any, call: Any) -> Any:
    """The phase's exception: ``CallInfo.excinfo``, or for a unittest ``TestCase`` method the first
    failure its result object recorded (pytest's unittest plugin moves that onto the CallInfo only inside
    its own ``makereport``, after this wrapper has looked; without this, every failing unittest-style
    test would be recorded as passed)."""
    if call.excinfo is not None:
        return call.excinfo
    recorded = getattr(item, "_excinfo", None)
    return recorded[0] if isinstance(recorded, list) and recorded else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Any:
    outcome = _outcome(_raw_excinfo(item, call))
    _emit("phase", id=item.nodeid, when=call.when, outcome=outcome)
    yield


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _emit("collect_error", id=report.nodeid)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: Any) -> None:
    for item in session.items:
        _emit("item", id=item.nodeid)


def _tampered() -> list[str]:
    """Names of pytest's report machinery replaced since import (classes rebound, attributes changed)."""
    changed = [f"{mod}.{name}" for (mod, name), obj in _ORIGINAL_NAMES.items()
               if getattr(sys.modules.get(mod), name, None) is not obj]
    for cls in _WATCHED:
        before = _ORIGINAL_ATTRS[cls.__qualname__]
        now = vars(cls)
        changed += [f"{cls.__qualname__}.{k}" for k in sorted(set(before) | set(now))
                    if before.get(k) is not now.get(k) and k != "__weakref__"]
    return sorted(changed)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    changed = _tampered()
    if changed:
        _emit("tampered", what=changed)
    _emit("finish", status=int(exitstatus), collected=int(getattr(session, "testscollected", 0)))
