"""Online evaluation (SWE-Journey §3.4): hidden tests on a snapshot of the workspace after each turn.

The hidden tests are never placed in the assistant's workspace. After a turn the workspace is copied to
a snapshot directory outside it, the instance's hidden test directory is copied into the snapshot, and
the instance's test command runs there once with pytest's JUnit XML output, which gives the result of
every test node in one run. Results are cached by the snapshot's tree hash, so identical trees (the base
repository, the reference states every persona reaches) are tested once per process; the key is the
tree hash plus the instance's test environment (command, environment, hidden files).

A node passes only when its JUnit test case has no failure, error or skipped child; a node that does not
appear in the report (e.g. its module failed to import) counts as failing. A run whose report is missing,
unreadable, or empty without any collection error is a harness error, never a pass (fail closed).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from reqbench.core.errors import HarnessError
from reqbench.protocols.journey.env import copy_tree, tree_hash
from reqbench.protocols.journey.models import Instance

_OUTPUT_TAIL = 4000


@dataclass(frozen=True)
class TestRun:
    """Per-node results of one hidden-test run on one tree."""

    probes: dict[str, bool]
    tree: str
    seconds: float = 0.0
    output_tail: str = ""

    def passed(self, node: str) -> bool:
        return self.probes.get(node, False)

    def rate(self, nodes: list[str]) -> float | None:
        """Fraction of `nodes` passing; None for an empty node list (never reported as 0 or 1)."""
        if not nodes:
            return None
        return sum(1 for n in nodes if self.passed(n)) / len(nodes)

    def failing(self, nodes: list[str]) -> list[str]:
        return [n for n in nodes if not self.passed(n)]


@dataclass
class _Cache:
    runs: dict[tuple[str, str], TestRun] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_CACHE = _Cache()


def node_id(classname: str, name: str, root: Path) -> str:
    """Map a JUnit (classname, name) back to a pytest node id ``path.py::[Class::]name``.

    The classname is the dotted module path plus any class names; the longest prefix that names an
    existing ``.py`` file under `root` is the module.
    """
    parts = classname.split(".") if classname else []
    for k in range(len(parts), 0, -1):
        candidate = "/".join(parts[:k]) + ".py"
        if (root / candidate).is_file():
            return "::".join([candidate, *parts[k:], name])
    return "::".join([*parts, name]) if parts else name


def parse_junit(xml_text: str, root: Path) -> tuple[dict[str, bool], int]:
    """Per-node pass/fail from JUnit XML, and the number of collection errors reported."""
    doc = ET.fromstring(xml_text)
    probes: dict[str, bool] = {}
    errors = 0
    for suite in doc.iter("testsuite"):
        errors += int(suite.get("errors", "0") or 0)
    for case in doc.iter("testcase"):
        bad = any(child.tag in ("failure", "error", "skipped") for child in case)
        node = node_id(case.get("classname", ""), case.get("name", ""), root)
        probes[node] = probes.get(node, True) and not bad
    return probes, errors


def _prepare_snapshot(instance: Instance, tree: Path, dest: Path) -> None:
    copy_tree(tree, dest)
    for item in instance.hidden_dir.iterdir():
        target = dest / item.name
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)
        if item.is_dir():
            shutil.copytree(item, target)
        else:
            shutil.copy2(item, target)


def run_hidden_tests(instance: Instance, tree: Path, scratch: Path | None = None) -> TestRun:
    """Run the hidden tests against a copy of `tree`; `tree` itself is never modified.

    Raises `HarnessError` when the run cannot produce a trustworthy report (timeout, no report, empty).
    """
    key = (instance.test_env_hash, tree_hash(tree))
    with _CACHE.lock:
        cached = _CACHE.runs.get(key)
    if cached is not None:
        return cached
    env_spec = instance.spec.environment
    with tempfile.TemporaryDirectory(prefix="journey-snap-", dir=scratch) as tmp:
        snap = Path(tmp) / "snapshot"
        _prepare_snapshot(instance, tree, snap)
        report = Path(tmp) / "junit.xml"
        argv = [a.replace("{python}", sys.executable) for a in env_spec.test_command]
        argv.append(f"--junitxml={report}")
        started = time.monotonic()
        try:
            proc = subprocess.run(argv, cwd=snap, capture_output=True, text=True,
                                  timeout=env_spec.timeout_seconds,
                                  env={"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1",
                                       "PYTHONHASHSEED": "0", "HOME": tmp, "LANG": "C.UTF-8",
                                       **env_spec.env})
        except subprocess.TimeoutExpired:
            raise HarnessError(f"hidden tests of {instance.id} timed out after "
                               f"{env_spec.timeout_seconds:g}s") from None
        seconds = time.monotonic() - started
        tail = (proc.stdout + proc.stderr)[-_OUTPUT_TAIL:]
        if not report.is_file():
            raise HarnessError(f"hidden tests of {instance.id} wrote no JUnit report (exit "
                               f"{proc.returncode}): {tail[-300:]}")
        try:
            probes, errors = parse_junit(report.read_text(encoding="utf-8"), snap)
        except ET.ParseError as exc:
            raise HarnessError(f"unreadable JUnit report: {exc}") from None
        if not probes and not errors:
            raise HarnessError(f"hidden tests of {instance.id} reported no test at all (fail closed)")
    run = TestRun(probes=probes, tree=key[1], seconds=seconds, output_tail=tail)
    with _CACHE.lock:
        _CACHE.runs[key] = run
    return run
