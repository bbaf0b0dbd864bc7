"""The ``environment/`` of an exported Harbor task: a Dockerfile from a reqbench ``environment:`` block (the
inverse of `protocols.harbor.dockerfile`, so an exported task imports back to the same kind of
environment), or the default one, plus the few files every exported task shares (``solve.sh``, TOML
strings).

The default image is ``python:3.11`` (Debian with git, which ``solve.sh``'s ``git apply`` and reqbench's
own grading code use); it maps back to a Python 3.11 venv on import. A block maps as: ``debian`` ->
``FROM debian:<suite>`` + ``apt-get install`` (with ``python3-pip`` when pip installs follow);
``python`` -> ``FROM python:<X.Y>`` (``host``: the version reqbench runs on) or, on a Debian root,
``pip install`` into the root's python3; ``image.docker`` -> ``FROM <name>``; ``setup`` -> ``RUN`` lines.
What has no Dockerfile form here (an image archive or Dockerfile, a lock or requirements file, an
installed project, a node layer) is one `InputError` naming the block's file and item.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError

WORKDIR = "/app"
DEFAULT_BASE = "python:3.11"
"""Debian bookworm with Python 3.11 and git (the ``-slim`` variant has no git)."""
SOLVE_SH = "#!/bin/bash\ngit apply --whitespace=nowarn /solution/reference.patch\n"
"""``solution/solve.sh``: the reference patch applied in the working directory."""


TEST_SH_HEAD = "#!/bin/bash\nrm -f /logs/verifier/reward.txt /logs/verifier/reward.json\n"
"""How every exported ``tests/test.sh`` starts: a reward file left in ``/logs/verifier`` before the verifier
ran (Harbor runs the verifier in the agent's container) is removed, so only this verifier's reward counts."""


def toml_string(text: str) -> str:
    """`text` as a TOML basic string (a JSON string is one)."""
    return json.dumps(text)


def dockerfile(block: dict[str, Any] | None, pip: list[str], *, origin: str) -> str:
    """The Dockerfile of a task whose reqbench environment is `block` (None: the default), with `pip`
    (requirement strings the verifier needs) installed, the starting repository copied to ``/app``."""
    lines = _from_block(block, pip, origin) if block else [f"FROM {DEFAULT_BASE}",
                                                           *([_pip(pip)] if pip else [])]
    return "\n".join([*lines, f"COPY repo/ {WORKDIR}/", f"WORKDIR {WORKDIR}", ""])


def _pip(requirements: list[str], *, system: bool = False) -> str:
    flags = "--no-cache-dir --break-system-packages " if system else "--no-cache-dir "
    return "RUN pip install " + flags + " ".join(shlex.quote(r) for r in requirements)


def _refuse(origin: str, item: str) -> InputError:
    return InputError("has no Dockerfile form in a Harbor export yet (debian packages, python requirements, "
                      "an image name and setup commands do)", file=origin, item=f"environment.{item}")


def _from_block(block: dict[str, Any], pip: list[str], origin: str) -> list[str]:
    python, debian, image = block.get("python") or {}, block.get("debian"), block.get("image")
    for item in ("requirements_file", "lock", "install_project"):
        if python.get(item):
            raise _refuse(origin, f"python.{item}")
    if block.get("node"):
        raise _refuse(origin, "node")
    if image and not image.get("docker"):
        raise _refuse(origin, "image")
    requirements = [*python.get("requirements", []), *pip]
    interpreter = str(python.get("interpreter", "host"))
    if debian is not None:
        packages = list(debian.get("packages", []))
        if requirements:
            packages += [p for p in ("python3", "python3-pip", "python3-venv") if p not in packages]
        lines = [f"FROM debian:{debian.get('suite', 'bookworm')}"]
        if packages:
            lines.append("RUN apt-get update && apt-get install -y --no-install-recommends "
                         + " ".join(packages) + " && rm -rf /var/lib/apt/lists/*")
        system = True
    elif image:
        lines, system = [f"FROM {image['docker']}"], False
    else:
        if interpreter.startswith("/"):
            raise _refuse(origin, "python.interpreter")
        version = f"{sys.version_info[0]}.{sys.version_info[1]}" if interpreter in ("host", "root") else interpreter
        lines, system = [f"FROM python:{version}"], False
    if requirements:
        lines.append(_pip(requirements, system=system))
    return [*lines, *(f"RUN {command}" for command in block.get("setup", []))]


def write_solution(dest: Path, patch: str) -> None:
    """``solution/`` of a task: the reference patch and ``solve.sh`` applying it."""
    (dest / "solution").mkdir(parents=True, exist_ok=True)
    (dest / "solution" / "reference.patch").write_text(patch, encoding="utf-8")
    (dest / "solution" / "solve.sh").write_text(SOLVE_SH)
