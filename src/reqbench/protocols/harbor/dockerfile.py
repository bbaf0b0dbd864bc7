"""A Harbor task's ``environment/`` as a reqbench ``environment:`` block (`environment_block`), the one
place that mapping lives (reqbench's environments: debian root, python venv, set-up commands, images).

Mapped: ``FROM debian:<suite>[-slim]`` -> ``debian`` (its ``RUN apt-get install`` packages);
``FROM python:<X.Y>[-...]`` -> ``python`` (interpreter X.Y, its ``RUN pip install`` requirements);
``WORKDIR`` -> the verifier's working directory (below a folder of a Debian root: made first by
``setup``, as the image has it, so the submission can be bound there); ``COPY``/``ADD`` of context
files into it -> the starting workspace; other ``RUN`` lines -> ``setup``; ``ENV`` -> variables of the
agent's steps, ``solve.sh`` and the verifier (`agentenv`).
Anything else (another base, other ``COPY``/``ADD`` forms, ``USER``, ``ENTRYPOINT``) keeps the Dockerfile
as an ``image`` built by a container engine; ``docker_image`` becomes ``image.docker``.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

NEEDS_ENGINE = ("this Dockerfile needs a container engine (docker or podman, or buildah) to build its image; "
                "reqbench then unpacks the image itself")
IGNORED = {"LABEL", "ARG", "CMD", "EXPOSE", "MAINTAINER", "SHELL", "STOPSIGNAL", "HEALTHCHECK", "VOLUME"}
_APT = re.compile(r"^(?:DEBIAN_FRONTEND=\S+\s+)?apt(?:-get)?\s+(?:-\S+\s+)*install\s+(.*)$")
_PIP = re.compile(r"^(?:python3?\s+-m\s+)?pip3?\s+install\s+(.*)$")
_HOUSEKEEPING = re.compile(r"^(apt(-get)?\s+(update|clean)|rm\s+-rf\s+/var/lib/apt/lists/?\*?)(\s|$)")


@dataclass
class EnvironmentMapping:
    """What a task's environment becomes: the block (None: the host toolchain), the working directory the
    verifier expects, variables, and one sentence per thing that could not be mapped."""

    block: dict[str, Any] | None = None
    workdir: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seeds: list[tuple[str, str]] = field(default_factory=list)
    """``COPY``/``ADD`` of build-context files (relative to ``environment/``) to absolute paths: the harness
    copies them into the workspace, which stands for the working directory."""


def _lines(text: str) -> list[tuple[str, str]]:
    joined = re.sub(r"\\\r?\n", " ", text)
    out = []
    for raw in joined.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _packages(rest: str, pattern: re.Pattern[str]) -> list[str] | None:
    """The names a plain install line installs, or None when the line does more (it becomes set-up)."""
    found = pattern.match(rest)
    if not found:
        return None
    words = shlex.split(found.group(1))
    return [w for w in words if not w.startswith("-")]


def _run(rest: str, packages: list[str], pips: list[str], setup: list[str]) -> None:
    for part in (p.strip() for p in re.split(r"&&|;", rest)):
        if not part or _HOUSEKEEPING.match(part):
            continue
        apt, pip = _packages(part, _APT), _packages(part, _PIP)
        if apt is not None:
            packages += apt
        elif pip is not None:
            pips += pip
        else:
            setup.append(part)


def _seed(rest: str) -> tuple[str, str] | None:
    """``COPY src dest`` of one context path to an absolute destination, or None (another form)."""
    try:
        words = [w for w in shlex.split(rest) if not w.startswith("--chown=") and not w.startswith("--chmod=")]
    except ValueError:
        return None
    if len(words) != 2 or words[0].startswith("-") or "://" in words[0]:
        return None
    src, dest = words
    if src.startswith("/") or ".." in src.split("/") or not dest.startswith("/") or ".." in dest.split("/"):
        return None
    return src, dest


def _base(image: str) -> tuple[str, str] | None:
    name, _, tag = image.partition(":")
    if name in ("debian", "docker.io/library/debian"):
        return "debian", (tag or "bookworm").split("-")[0]
    if name in ("python", "docker.io/library/python"):
        version = re.match(r"^(\d+\.\d+)", tag or "")
        return ("python", version.group(1)) if version else None
    return None


def environment_block(dockerfile: str | None, docker_image: str | None = None,
                      dockerfile_path: str = "environment/Dockerfile",
                      workdir: str | None = None) -> EnvironmentMapping:
    """The ``environment:`` block for a task's Dockerfile text (None: no ``environment/``) or its
    ``docker_image``; paths in the block are relative to the task folder. `workdir` (the task's
    ``[environment].workdir``) wins over the Dockerfile's ``WORKDIR``."""
    if dockerfile is None:
        if docker_image:
            return EnvironmentMapping({"image": {"docker": docker_image}},
                                      notes=[f"docker_image {docker_image!r}: {NEEDS_ENGINE}"])
        return EnvironmentMapping()
    mapping = EnvironmentMapping()
    packages: list[str] = []
    pips: list[str] = []
    setup: list[str] = []
    base: tuple[str, str] | None = None
    blocked: list[str] = []
    for word, rest in _lines(dockerfile):
        if word == "FROM":
            base = None if base is not None else _base(rest.split()[0] if rest else "")
            if base is None:
                blocked.append(f"FROM {rest}")
        elif word == "RUN":
            _run(rest, packages, pips, setup)
        elif word == "WORKDIR":
            mapping.workdir = rest
        elif word in ("COPY", "ADD") and _seed(rest) is not None:
            mapping.seeds.append(_seed(rest))  # type: ignore[arg-type]
        elif word == "ENV":
            key, _, value = rest.replace("=", " ", 1).partition(" ")
            mapping.env[key] = value.strip().strip('"')
        elif word not in IGNORED:
            blocked.append(f"{word} {rest}"[:60])
    mapping.workdir = workdir or mapping.workdir
    if blocked:
        mapping.block = {"image": {"dockerfile": dockerfile_path}}
        mapping.notes.append(f"{dockerfile_path} ({blocked[0]!r} has no daemonless equivalent): {NEEDS_ENGINE}")
        return mapping
    assert base is not None
    block: dict[str, Any] = {}
    if base[0] == "debian":
        block["debian"] = {"suite": base[1], "packages": packages}
        if pips:
            block["python"] = {"interpreter": "root", "requirements": pips}
    else:
        block["python"] = {"interpreter": base[1], "requirements": pips}
        if packages:
            block["debian"] = {"suite": "bookworm", "packages": ["python3", "python3-venv", *packages]}
            block["python"]["interpreter"] = "root"
            mapping.notes.append(f"python:{base[1]} with apt packages: Debian bookworm's python3 stands for {base[1]}")
    if "debian" in block and mapping.workdir and mapping.workdir.strip("/").count("/"):
        setup.insert(0, f"mkdir -p {shlex.quote(mapping.workdir)}")  # as WORKDIR makes it in the image
    if setup:
        block["setup"] = setup
    mapping.block = block
    return mapping
