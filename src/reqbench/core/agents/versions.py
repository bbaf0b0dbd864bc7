"""Pinned versions of third-party agent CLIs and the per-version install cache they run from.

Floating agent versions move scores, so each preset pins the version it was tested with (`PACKAGES`);
``--agent claude-code@2.1.332`` asks for another one. `install` puts a version into its own
directory of the cache -- ``npm install --prefix CACHE/NAME/VERSION PACKAGE@VERSION`` for the npm
tools, a virtualenv ``CACHE/NAME/VERSION/venv`` for the PyPI ones (made with the Python the tool
requires when that is not reqbench's own: OpenHands needs 3.12, `find_python`) -- never into the
user's environment. The cache is ``$REQBENCH_AGENTS_CACHE``, else ``<reqbench cache>/agents``. A preset runs
the cached binary of its version when it is there, else the tool found on PATH (and says which ran).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError

CACHE_ENV = "REQBENCH_AGENTS_CACHE"


@dataclass(frozen=True)
class ToolPackage:
    manager: str
    """``npm`` or ``pip``."""
    package: str
    binary: str
    pinned: str
    python: str | None = None
    """For ``pip`` tools that need another Python than reqbench's own: its ``MAJOR.MINOR``."""
    auxiliary_models: tuple[str, ...] = ()
    """Models the tool calls on its own besides the run's ``--model`` (``fnmatch`` patterns). The model
    gateway forwards these and refuses every other model that is not the run's
    (`core.llm.gateway.models`); each call records the model that answered it."""


CLAUDE_SMALL_MODELS = ("claude-haiku-4-5*", "claude-3-5-haiku*")
"""Claude Code's small fast model: it names sessions, summarises and checks shell commands with it."""
AIDER_WEAK_MODELS = ("gpt-4o-mini", "gpt-4.1-mini", "claude-haiku-4-5*", "claude-3-5-haiku*")
"""Aider's weak model for a main model of those families (it summarises the chat history with it)."""

PACKAGES: dict[str, ToolPackage] = {
    "claude-code": ToolPackage("npm", "@anthropic-ai/claude-code", "claude", "2.1.332",
                               auxiliary_models=CLAUDE_SMALL_MODELS),
    "codex": ToolPackage("npm", "@openai/codex", "codex", "0.171.0"),
    "aider": ToolPackage("pip", "aider-chat", "aider", "0.86.2", auxiliary_models=AIDER_WEAK_MODELS),
    "openhands": ToolPackage("pip", "openhands", "openhands", "1.16.0", python="3.12"),
    # the OpenHands CLI (``--headless --json``); it requires Python 3.12 exactly
    "mini-swe-agent": ToolPackage("pip", "mini-swe-agent", "mini", "2.4.6"),
}


def split_spec(spec: str) -> tuple[str, str | None]:
    """``claude-code@2.1.332`` -> (``claude-code``, ``2.1.332``); no ``@`` -> (spec, None)."""
    name, at, version = spec.partition("@")
    if at and not version:
        raise InputError(f"{spec!r}: a version must follow '@'", item="--agent")
    return name, version or None


def cache_dir() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    from reqbench.core.cache_location import cache_root

    return cache_root() / "agents"


def find_python(minor: str) -> str | None:
    """An interpreter of Python `minor` (``3.12``): ``$REQBENCH_PYTHON_3_12``, ``python3.12`` on PATH, or
    one of pyenv's versions; None when there is none."""
    names = [os.environ.get("REQBENCH_PYTHON_" + minor.replace(".", "_"), ""), f"python{minor}"]
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv") / "versions"
    names += [str(p) for p in sorted(pyenv.glob(f"{minor}.*/bin/python{minor}"), reverse=True)]
    check = f"import sys; sys.exit(sys.version_info[:2] != {tuple(int(x) for x in minor.split('.'))})"
    for name in filter(None, names):
        exe = shutil.which(name)
        if exe and subprocess.run([exe, "-c", check], capture_output=True).returncode == 0:
            return exe
    return None


def install_dir(name: str, version: str) -> Path:
    return cache_dir() / name / version


def cached_binary(name: str, version: str | None = None) -> Path | None:
    """The binary of `name` at `version` (default: pinned) in the cache, or None when not installed."""
    pkg = PACKAGES[name]
    root = install_dir(name, version or pkg.pinned)
    path = root / ("node_modules/.bin" if pkg.manager == "npm" else "venv/bin") / pkg.binary
    return path if path.exists() else None


def install(name: str, version: str | None = None, *,
            run: Callable[..., Any] = subprocess.run) -> tuple[Path, float]:
    """Install `name` at `version` (default: pinned) into its cache directory; returns (binary, seconds)."""
    if name not in PACKAGES:
        raise InputError(f"no installer for agent {name!r}; installable: {', '.join(sorted(PACKAGES))}",
                         item="agents install")
    pkg = PACKAGES[name]
    version = version or pkg.pinned
    existing = cached_binary(name, version)
    if existing is not None:
        return existing, 0.0
    python = sys.executable
    if pkg.python is not None:
        found = find_python(pkg.python)
        if found is None:
            raise InputError(f"{pkg.package} needs Python {pkg.python}: install it, or name its interpreter in "
                             f"REQBENCH_PYTHON_{pkg.python.replace('.', '_')}", item="agents install")
        python = found
    final = install_dir(name, version)
    final.parent.mkdir(parents=True, exist_ok=True)
    # npm: built beside its final place and renamed; pip: a virtualenv is not relocatable, so it is
    # built in place and removed again if the install fails. Either way nothing half-made remains.
    target = final.parent / f".{version}.installing-{os.getpid()}" if pkg.manager == "npm" else final
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir()
    started = time.monotonic()
    try:
        if pkg.manager == "npm":
            run(["npm", "install", "--prefix", str(target), "--no-audit", "--no-fund",
                 f"{pkg.package}@{version}"], check=True)
            os.rename(target, final)
        else:
            run([python, "-m", "venv", str(target / "venv")], check=True)
            run([str(target / "venv" / "bin" / "python"), "-m", "pip", "install", "-q",
                 f"{pkg.package}=={version}"], check=True)
    except (subprocess.CalledProcessError, OSError) as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise InputError(f"installing {pkg.package}@{version} failed: {exc}", item="agents install") from None
    binary = cached_binary(name, version)
    if binary is None:
        raise InputError(f"{pkg.package}@{version} installed but has no {pkg.binary!r}", item="agents install")
    return binary, time.monotonic() - started
