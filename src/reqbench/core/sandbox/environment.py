"""A task's environment inside the sandbox (DESIGN §14): which of its folders appear where, and what it sets.

A built environment (`core.environments.BuiltEnvironment`) enters a launch as an `EnvironmentMount`:

* with a **root** (debian/image kinds), the sandbox's system directories come from it instead of the
  host's: every top-level entry of the root but the ones the sandbox makes itself (`ROOT_SKIP`: ``/dev``,
  ``/proc``, ``/tmp``, ``/run``, ``/sys``, ``HOME``'s ``/home`` and ``/root``, ...) is bound at ``/NAME``,
  a top-level link is recreated as a link; the host's ``/usr``, ``/lib``, ``/etc``, ... are then not shown;
* its **layers** (a venv at ``/opt/reqbench-env/python``, node_modules) are bound at their in-sandbox paths;
* its **variables** are set: ``PATH`` is a prefix put before the sandbox's PATH, the others replace.

A mount is *pristine* (everything read-only: what every check sees, `EnvironmentMount.pristine`) or
*writable* (`writable=True`: its folders are overlays the harness mounted for one row or one session, whose
upper directories are thrown away with it -- `envoverlay`); it is never the cache's tree made writable.

Agent steps get the row's mount through `agent_environment` (a context variable bound by `core.execute`
around each step or session turn: every launch of the agent's adapter inside it runs in the environment);
a launch that names its environment in `SandboxOptions.environment` (a check: always the pristine one) is
not affected by it.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from reqbench.core.errors import HarnessError

ROOT_SKIP = frozenset({"dev", "proc", "sys", "tmp", "run", "home", "root", "sandbox", "lost+found", "boot"})
"""Top-level entries of an environment's root the sandbox never takes from it: made by the sandbox itself
(``/dev``, ``/proc``, ``/tmp``, ``/run`` for the gateway socket, ``/sandbox`` for HOME and TMPDIR), kernel
interfaces (``/sys``), or homes, where the harness's own toolchain may have to be bound."""


class BuiltLike(Protocol):
    """What a mount needs of a `core.environments.BuiltEnvironment` (structural, so the sandbox does not
    import the builders)."""

    @property
    def key(self) -> str: ...

    @property
    def root(self) -> Path | None: ...

    @property
    def binds(self) -> tuple[tuple[Path, str], ...]: ...

    @property
    def env(self) -> Mapping[str, str]: ...

    @property
    def python(self) -> str | None: ...


@dataclass(frozen=True)
class EnvironmentMount:
    """How one launch shows an environment: host folders and where they appear (module docstring)."""

    key: str
    """The environment's content key (recorded; part of the view's cache key)."""
    root: Path | None
    """Host folder whose top-level entries replace the system directories (None: the host's)."""
    layers: tuple[tuple[Path, str], ...] = ()
    """(host folder, in-sandbox path) of each layer of the environment's own tree."""
    shared: tuple[tuple[Path, str], ...] = ()
    """Host folders the environment shows at their own path (a venv's base interpreter): always read-only,
    never overlaid (they are the host's, not the environment's)."""
    variables: tuple[tuple[str, str], ...] = ()
    """Variables the environment sets (``PATH``: a prefix)."""
    python: str | None = None
    """The environment's interpreter inside the sandbox (checks run pytest with it)."""
    writable: bool = False
    """The folders are a row's or session's throw-away overlays: bound read-write."""

    @classmethod
    def pristine(cls, built: BuiltLike) -> EnvironmentMount:
        """The built environment itself, read-only (what checks see)."""
        binds = [(Path(h), str(i)) for h, i in built.binds]
        return cls(built.key, built.root, tuple(b for b in binds if os.fspath(b[0]) != b[1]),
                   tuple(b for b in binds if os.fspath(b[0]) == b[1]), tuple(sorted(built.env.items())),
                   built.python)

    def apply_variables(self, env: dict[str, str]) -> None:
        """Set the environment's variables in `env` (``PATH`` goes before what is there)."""
        for name, value in self.variables:
            if name == "PATH" and env.get("PATH"):
                env["PATH"] = value + os.pathsep + env["PATH"]
            else:
                env[name] = value

    def root_args(self) -> tuple[list[str], list[str]]:
        """bubblewrap options showing the root's top-level entries, and the in-sandbox folders they bind."""
        if self.root is None:
            return [], []
        bind = "--bind" if self.writable else "--ro-bind"
        args: list[str] = []
        bound: list[str] = []
        for name in sorted(os.listdir(self.root)):
            if name in ROOT_SKIP:
                continue
            host = os.path.join(self.root, name)
            if os.path.islink(host):
                args += ["--symlink", os.readlink(host), "/" + name]
            elif os.path.isdir(host):
                args += [bind, host, "/" + name]
                bound.append("/" + name)
        return args, bound

    def masks_for(self, candidates: list[Path]) -> list[Path]:
        """In-sandbox paths of the `candidates` (host folders to mask: the reqbench package, the source cache)
        that lie inside a folder this environment binds (a venv's base interpreter holding reqbench)."""
        out: list[Path] = []
        for host, inside in (*self.shared, *self.layers):
            top = os.path.realpath(host)
            for candidate in candidates:
                for form in {os.path.abspath(candidate), os.path.realpath(candidate)}:
                    if (form == top or form.startswith(top.rstrip("/") + "/")) and os.path.isdir(form):
                        masked = Path(inside + form[len(top):])
                        if masked not in out:
                            out.append(masked)
        return out

    def root_tops(self) -> frozenset[str]:
        """Names of the root's top-level entries the sandbox shows (folders and links)."""
        if self.root is None:
            return frozenset()
        return frozenset(n for n in os.listdir(self.root) if n not in ROOT_SKIP)

    def layer_args(self, root_bound: list[str]) -> list[str]:
        """bubblewrap options binding each layer; a layer below a folder of the root needs its mount point
        there (a read-only folder cannot get one): `HarnessError` otherwise."""
        args: list[str] = []
        for (host, inside), writable in [*((s, False) for s in self.shared), *((la, self.writable)
                                                                              for la in self.layers)]:
            top = "/" + inside.strip("/").split("/", 1)[0]
            if self.root is not None and top in root_bound and not os.path.isdir(str(self.root) + inside):
                raise HarnessError(f"environment {self.key[:12]}: its root has no folder {inside} to bind "
                                   "the layer on")
            args += ["--bind" if writable else "--ro-bind", os.fspath(host), inside]
        return args


_AGENT_MOUNT: contextvars.ContextVar[EnvironmentMount | None] = contextvars.ContextVar(
    "reqbench_agent_environment", default=None)


@contextlib.contextmanager
def agent_environment(mount: EnvironmentMount | None) -> Iterator[None]:
    """Every launch in this context that names no environment of its own runs in `mount` (an agent step)."""
    token = _AGENT_MOUNT.set(mount)
    try:
        yield
    finally:
        _AGENT_MOUNT.reset(token)


def current_agent_environment() -> EnvironmentMount | None:
    return _AGENT_MOUNT.get()


_ROW_MOUNT: contextvars.ContextVar[EnvironmentMount | None] = contextvars.ContextVar(
    "reqbench_row_environment", default=None)


@contextlib.contextmanager
def row_environment(mount: EnvironmentMount | None) -> Iterator[None]:
    """The row's pristine environment, which every check of the row runs in (`core.checks.run_check`)."""
    token = _ROW_MOUNT.set(mount)
    try:
        yield
    finally:
        _ROW_MOUNT.reset(token)


def current_row_environment() -> EnvironmentMount | None:
    return _ROW_MOUNT.get()
