"""The one ``environment:`` block every task file and ``reqbench run --environment`` accept (DESIGN §14), and
what building it yields.

`EnvironmentSpec` is the file format (``reqbench schema environment``): kinds that combine -- a Python venv,
a node_modules layer, a Debian root (mmdebstrap), an image root (a docker-save/OCI archive or layout, or a
``docker:`` name / ``dockerfile:`` built through a docker/podman/buildah the user has) -- plus ``setup``
commands run once at build time inside the environment. At most one of ``debian`` and ``image`` gives the
root file system. Paths in the block are relative to the file that holds it (`load_environment`'s
``base_dir``) and must stay inside that folder.

`BuiltEnvironment` is a built, read-only environment in the cache: its content key, its folder, the root
file system (or None: the host's system directories), the read-only layers to bind into the sandbox, the
variables to set and the interpreter that runs the checks' pytest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from reqbench.core.errors import InputError
from reqbench.core.inputfiles import validate

FORMAT_VERSION = 1
"""reqbench's environment format version: part of every key, so a change to how environments are built
never reuses a folder built the old way."""
MOUNT_ROOT = "/opt/reqbench-env"
"""Where the layers of an environment appear inside the sandbox (``python``, ``node`` below it)."""
PYTHON_MOUNT = f"{MOUNT_ROOT}/python"
NODE_MOUNT = f"{MOUNT_ROOT}/node"
_VERSION = re.compile(r"^3\.\d{1,2}$")
_DEBIAN_SUITE = re.compile(r"^[a-z][a-z0-9-]*$")
_DEBIAN_PACKAGE = re.compile(r"^[a-z0-9][a-z0-9+.-]*(:[a-z0-9-]+)?(=[A-Za-z0-9.+:~-]+)?$")


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PythonSpec(_Block):
    """A Python virtual environment, bound read-only at ``/opt/reqbench-env/python``."""

    interpreter: str = Field(
        default="host",
        description="'host' (the interpreter reqbench runs on), 'root' (python3 of the debian/image root), "
                    "a version such as '3.12' (found on the host's PATH as python3.12) or an absolute path")
    requirements: list[str] = Field(default_factory=list,
                                    description="Requirement strings, e.g. ['python-dateutil==2.9.0.post0']")
    requirements_file: str | None = Field(default=None, description="A requirements.txt, relative to the file")
    lock: str | None = Field(
        default=None,
        description="A fully pinned requirements file (e.g. from `uv pip compile`), installed with no "
                    "dependency resolution (--no-deps)")
    install_project: bool = Field(
        default=False,
        description="Install the dependencies the project declares in `project`/pyproject.toml "
                    "([project].dependencies plus the named `extras`); the project's own code is the "
                    "row's workspace")
    project: str = Field(default=".", description="The project folder holding pyproject.toml, relative to the file")
    extras: list[str] = Field(default_factory=list, description="Optional-dependency groups of the project")
    installer: Literal["uv", "pip"] = Field(default="uv", description="Who installs: uv (fast) or pip")

    @model_validator(mode="after")
    def _interpreter_form(self) -> PythonSpec:
        it = self.interpreter
        if it not in ("host", "root") and not _VERSION.match(it) and not it.startswith("/"):
            raise ValueError(f"interpreter {it!r} must be 'host', 'root', a version like '3.12' or an "
                             "absolute path")
        if self.extras and not self.install_project:
            raise ValueError("extras need install_project: true")
        return self


class NodeSpec(_Block):
    """A node_modules layer from ``npm ci``, bound read-only at ``/opt/reqbench-env/node``."""

    package_json: str = Field(
        description="The folder holding package.json and package-lock.json, relative to the file")


class DebianSpec(_Block):
    """A Debian root file system built with mmdebstrap from the host's apt mirror."""

    suite: str = Field(default="bookworm", description="Debian suite (codename), e.g. 'bookworm'")
    packages: list[str] = Field(default_factory=list, description="Extra packages, e.g. ['python3', 'git']")
    variant: Literal["minbase", "essential", "apt", "required", "important", "standard"] = Field(
        default="minbase", description="mmdebstrap variant")
    mirror: str | None = Field(default=None,
                               description="Mirror URL; default: the first one in the host's apt sources")

    @model_validator(mode="after")
    def _names(self) -> DebianSpec:
        if not _DEBIAN_SUITE.match(self.suite):
            raise ValueError(f"suite {self.suite!r} is not a Debian suite name")
        for name in self.packages:
            if not _DEBIAN_PACKAGE.match(name):
                raise ValueError(f"package {name!r} is not a Debian package name")
        return self


class ImageSpec(_Block):
    """A root file system from a container image: exactly one of `archive`, `docker`, `dockerfile`."""

    archive: str | None = Field(
        default=None,
        description="A `docker save`/`podman save` archive, an OCI archive, or an OCI layout folder, "
                    "relative to the file; unpacked without any daemon")
    docker: str | None = Field(
        default=None,
        description="An image name (e.g. 'python:3.12-slim'), saved through the docker/podman the user has")
    dockerfile: str | None = Field(
        default=None,
        description="A Dockerfile, relative to the file (its folder is the build context), built through the "
                    "docker/podman/buildah the user has")

    @model_validator(mode="after")
    def _exactly_one(self) -> ImageSpec:
        given = [n for n in ("archive", "docker", "dockerfile") if getattr(self, n)]
        if len(given) != 1:
            raise ValueError("image needs exactly one of archive, docker, dockerfile"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self


class EnvironmentSpec(_Block):
    """Where a row's code runs: a content-addressed, read-only environment built once (DESIGN §14)."""

    python: PythonSpec | None = Field(default=None, description="A Python venv layer")
    node: NodeSpec | None = Field(default=None, description="A node_modules layer (npm ci)")
    debian: DebianSpec | None = Field(default=None, description="A Debian root file system (mmdebstrap)")
    image: ImageSpec | None = Field(default=None, description="A root file system from a container image")
    setup: list[str] = Field(
        default_factory=list,
        description="Shell commands run once, in order, at build time inside the environment "
                    "(network on, writable); never at run time")

    @model_validator(mode="after")
    def _combination(self) -> EnvironmentSpec:
        if self.debian is not None and self.image is not None:
            raise ValueError("debian and image both give the root file system; choose one")
        if self.python is not None and self.python.interpreter == "root" and self.root_kind is None:
            raise ValueError("python interpreter 'root' needs a debian or image root")
        if not any((self.python, self.node, self.debian, self.image, self.setup)):
            raise ValueError("an environment needs at least one of python, node, debian, image, setup")
        if any(not c.strip() for c in self.setup):
            raise ValueError("setup commands must not be empty")
        return self

    @property
    def root_kind(self) -> Literal["debian", "image"] | None:
        """Which kind gives the root file system (None: the host's system directories)."""
        return "debian" if self.debian is not None else "image" if self.image is not None else None

    def named_files(self) -> list[tuple[str, str]]:
        """``(item, relative path)`` of every file or folder the spec names (their bytes are in the key)."""
        out: list[tuple[str, str]] = []
        if self.python is not None:
            for item in ("requirements_file", "lock"):
                value = getattr(self.python, item)
                if value:
                    out.append((f"python.{item}", value))
            if self.python.install_project:
                out.append(("python.project", str(Path(self.python.project) / "pyproject.toml")))
        if self.node is not None:
            out += [("node.package_json", str(Path(self.node.package_json) / "package.json")),
                    ("node.package_json", str(Path(self.node.package_json) / "package-lock.json"))]
        if self.image is not None:
            if self.image.archive:
                out.append(("image.archive", self.image.archive))
            if self.image.dockerfile:
                out.append(("image.dockerfile", self.image.dockerfile))
        return out


@dataclass(frozen=True)
class BuiltEnvironment:
    """A complete, read-only environment in the cache, ready to bind into a sandbox."""

    key: str
    """sha256 (hex) of everything that defines the environment (`environment_key`)."""
    path: Path
    """Its cache folder, ``<cache>/environments/<key>/``."""
    root: Path | None
    """A complete root file system to serve as ``/`` (debian/image); None: the host's system directories."""
    binds: tuple[tuple[Path, str], ...] = ()
    """Read-only layers: (host path, in-sandbox path), e.g. the venv at ``/opt/reqbench-env/python``."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables to set in the sandbox (PATH prefix, VIRTUAL_ENV, NODE_PATH)."""
    python: str | None = None
    """The interpreter inside the sandbox that runs the checks' pytest; None: the host rules."""


def load_environment(data: Any, *, origin: str, base_dir: Path) -> EnvironmentSpec:
    """Validate one ``environment:`` block read from `origin` (a file name, for messages); every file it
    names must exist below `base_dir`. Any problem is one `InputError` naming `origin`, the item and the rule."""
    if isinstance(data, EnvironmentSpec):
        spec = data
    else:
        try:
            spec = validate(EnvironmentSpec, data, origin)
        except InputError as exc:
            item = "environment" + (f".{exc.item}" if exc.item else "")
            raise InputError(exc.rule, file=origin, item=item) from None
    base = base_dir.resolve()
    for item, rel in spec.named_files():
        resolved_file(base, rel, origin=origin, item=f"environment.{item}")
    return spec


def resolved_file(base: Path, rel: str, *, origin: str, item: str) -> Path:
    """`rel` below `base` (resolved); it must exist and not leave `base`."""
    path = (base / rel).resolve()
    if path != base and base not in path.parents:
        raise InputError(f"{rel!r} leaves the folder of the file", file=origin, item=item)
    if not path.exists():
        raise InputError(f"{rel!r} does not exist (relative to {base})", file=origin, item=item)
    return path
