"""`environment_key`: the content address of an environment -- sha256 over everything that defines it.

Into the hash go reqbench's environment format version, the canonical JSON of the spec, the identity of the
interpreter a ``host``/version/path venv is built on, and the bytes of every file the spec names
(requirements, lock, pyproject.toml, package.json and package-lock.json, the Dockerfile and its build
context). An image archive or OCI layout counts by the digests of its layers (``rootfs.diff_ids``, which
`image_unpack` checks against the bytes it unpacks), so a key costs a read of two small JSON files however
large the image; an image whose config lists none counts by all its bytes. A ``docker:`` image counts by
the image id its engine reports. Two specs with the same key are the same environment; anything that could change the
built tree changes the key.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from reqbench.core.environments.image_source import layer_digests
from reqbench.core.environments.model import FORMAT_VERSION, EnvironmentSpec, resolved_file
from reqbench.core.hashing import canonical_json, sha256_file
from reqbench.core.workspace.trees import tree_hash


def environment_key(spec: EnvironmentSpec, base_dir: Path) -> str:
    """The sha256 (hex) content key of `spec`, whose relative paths are relative to `base_dir`."""
    h = hashlib.sha256()

    def part(tag: str, value: str) -> None:
        h.update(tag.encode() + b"\0" + value.encode() + b"\0")

    part("format", str(FORMAT_VERSION))
    part("spec", canonical_json(_without_file_names(spec)))
    if spec.python is not None and spec.python.interpreter != "root":
        part("interpreter", interpreter_identity(spec.python.interpreter))
    base = base_dir.resolve()
    for item, rel in spec.named_files():
        path = resolved_file(base, rel, origin=str(base), item=f"environment.{item}")
        layers = layer_digests(path, str(base)) if item == "image.archive" else None
        if layers is not None:  # an image is its layers: their digests are checked as they are unpacked
            part(f"layers:{item}", ",".join(layers))
        else:
            part(f"file:{item}:{path.name}", tree_hash(path) if path.is_dir() else sha256_file(path))
    if spec.image is not None and spec.image.dockerfile:
        context = resolved_file(base, spec.image.dockerfile, origin=str(base), item="environment.image").parent
        part("context", tree_hash(context))
    if spec.image is not None and spec.image.docker:
        from reqbench.core.environments.engines import image_id

        part("docker", image_id(spec.image.docker))
    return h.hexdigest()


def _without_file_names(spec: EnvironmentSpec) -> dict[str, object]:
    """The spec as JSON with the paths of named files blanked: a file counts by its content, so the same
    requirements (or image) under another name or folder is the same environment."""
    data: dict[str, dict[str, object]] = spec.model_dump(mode="json")
    for item, _ in spec.named_files():
        kind, _, field = item.partition(".")
        data[kind][field] = "<content>"
    return dict(data)


def interpreter_identity(interpreter: str) -> str:
    """What a venv depends on in its base interpreter: the resolved executable and its version (the same
    on every machine that has that interpreter at that path, so workers find the driver's key)."""
    from reqbench.core.environments.interpreters import base_interpreter
    from reqbench.core.environments.venvs import interpreter_version

    exe = base_interpreter(interpreter)
    return f"{exe}|{'.'.join(map(str, interpreter_version(exe)))}"
