"""`environment_key`: the content address of an environment -- sha256 over everything that defines it.

Into the hash go reqbench's environment format version, the canonical JSON of the spec, the identity of the
interpreter a ``host``/version/path venv is built on, and the bytes of every file the spec names
(requirements, lock, pyproject.toml, package.json and package-lock.json, the Dockerfile and its build
context, the image archive; an OCI layout folder by its tree). A ``docker:`` image counts by the image id
its engine reports. Two specs with the same key are the same environment; anything that could change the
built tree changes the key.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from reqbench.core.environments.model import FORMAT_VERSION, EnvironmentSpec, resolved_file
from reqbench.core.hashing import canonical_json, sha256_file
from reqbench.core.workspace.trees import tree_hash


def environment_key(spec: EnvironmentSpec, base_dir: Path) -> str:
    """The sha256 (hex) content key of `spec`, whose relative paths are relative to `base_dir`."""
    h = hashlib.sha256()

    def part(tag: str, value: str) -> None:
        h.update(tag.encode() + b"\0" + value.encode() + b"\0")

    part("format", str(FORMAT_VERSION))
    part("spec", canonical_json(spec.model_dump(mode="json")))
    if spec.python is not None and spec.python.interpreter != "root":
        part("interpreter", interpreter_identity(spec.python.interpreter))
    base = base_dir.resolve()
    for item, rel in spec.named_files():
        path = resolved_file(base, rel, origin=str(base), item=f"environment.{item}")
        part(f"file:{rel}", tree_hash(path) if path.is_dir() else sha256_file(path))
    if spec.image is not None and spec.image.dockerfile:
        context = resolved_file(base, spec.image.dockerfile, origin=str(base), item="environment.image").parent
        part("context", tree_hash(context))
    if spec.image is not None and spec.image.docker:
        from reqbench.core.environments.engines import image_id

        part("docker", image_id(spec.image.docker))
    return h.hexdigest()


def interpreter_identity(interpreter: str) -> str:
    """What a venv depends on in its base interpreter: the resolved executable and its version (the same
    on every machine that has that interpreter at that path, so workers find the driver's key)."""
    from reqbench.core.environments.interpreters import base_interpreter
    from reqbench.core.environments.venvs import interpreter_version

    exe = base_interpreter(interpreter)
    return f"{exe}|{'.'.join(map(str, interpreter_version(exe)))}"
