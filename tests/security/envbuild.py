"""A real task environment for the environment red-team tests: a Python venv holding a package reqbench's
own venv lacks (``six``) and another pytest (7.4), built once per test session with `ensure_built`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from reqbench.core.environments import BuiltEnvironment, ensure_built, load_environment

BLOCK = {"python": {"interpreter": "host", "requirements": ["six==1.17.0", "pytest==7.4.4"]}}
"""``six`` is in no venv of reqbench (asserted), pytest 7 is not the harness's pytest 9."""


def session_environment(factory: pytest.TempPathFactory, block: dict | None = None) -> BuiltEnvironment:
    """The environment of `block`, built into this test session's cache (found there after the first call)."""
    assert importlib.util.find_spec("six") is None, "six must be missing from the harness's own venv"
    base = factory.getbasetemp() / "environment-block"
    base.mkdir(exist_ok=True)
    spec = load_environment(block or BLOCK, origin="test", base_dir=base)
    try:
        return ensure_built(spec, base, cache=factory.getbasetemp() / "environment-cache")
    except Exception as exc:  # noqa: BLE001 - no package registry here: nothing to test against
        pytest.skip(f"cannot build the test environment here: {exc}")


def tree_digest(path: Path) -> dict[str, tuple[int, str]]:
    """{relative path: (mode, content or link target)} of every entry below `path` (no hashing needed)."""
    out: dict[str, tuple[int, str]] = {}
    for entry in sorted(path.rglob("*")):
        info = entry.lstat()
        if entry.is_symlink():
            out[str(entry.relative_to(path))] = (info.st_mode, str(entry.readlink()))
        elif entry.is_file():
            out[str(entry.relative_to(path))] = (info.st_mode, entry.read_bytes().hex()[:64] + str(info.st_size))
        else:
            out[str(entry.relative_to(path))] = (info.st_mode, "")
    return out
