"""The check guard runs inside a task environment's own interpreter, next to the environment's own pytest
(any pytest >= 7): its two modules may import only the standard library, pytest and each other -- nothing of
reqbench or of the harness's site-packages -- and must compile on the oldest Python 3 they claim."""

from __future__ import annotations

import ast
import sys

from reqbench.core.checks.guarddir import guard_files
from reqbench.core.checks.models import GUARD_DIR

ALLOWED = {"__future__", "json", "os", "sys", "typing", "pytest", "_pytest", "reqbench_guard"}


def _imports(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add((node.module or "").split(".")[0])
    return found


def test_the_guard_imports_only_the_standard_library_and_pytest() -> None:
    for name in ("reqbench_guard.py", "reqbench_pytest.py"):
        used = _imports((GUARD_DIR / name).read_text())
        assert used <= ALLOWED, f"{name} imports {sorted(used - ALLOWED)}"
        assert used - {"pytest", "_pytest", "reqbench_guard"} <= set(sys.stdlib_module_names)


def test_the_guard_parses_as_python_3_8() -> None:
    for name in ("reqbench_guard.py", "reqbench_pytest.py"):
        ast.parse((GUARD_DIR / name).read_text(), feature_version=(3, 8))


def test_an_environment_gets_the_guard_as_source_the_harness_as_byte_code() -> None:
    assert sorted(guard_files(source=True)) == ["pytest.ini", "reqbench_guard.py", "reqbench_pytest.py"]
    assert sorted(guard_files()) == ["pytest.ini", "reqbench_guard.pyc", "reqbench_pytest.pyc"]
