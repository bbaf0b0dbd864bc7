"""Container engines the user may have (docker, podman, buildah): used only to turn an image name or a
Dockerfile into an archive, which reqbench then unpacks itself (`image_unpack`). Where none is installed,
the spec that needs one is refused in one sentence (exit 2); the archive and OCI-layout paths never need one.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from reqbench.core.errors import InputError

_SAVERS = ("docker", "podman")


def _engine(item: str, names: tuple[str, ...]) -> str:
    for name in names:
        found = shutil.which(name)
        if found is not None:
            return found
    raise InputError(f"needs {' or '.join(names)} to make an image archive and none is installed; save the image "
                     "with `docker save` on a machine that has one and name the file in image.archive", item=item)


def _run(argv: list[str], item: str, timeout: float = 3600) -> str:
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"{Path(argv[0]).name} could not run: {exc}", item=item) from exc
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise InputError(f"{Path(argv[0]).name} {argv[1]} failed: {' | '.join(tail)}", item=item)
    return proc.stdout.strip()


def image_id(name: str) -> str:
    """The id of image `name` as the user's docker/podman knows it."""
    engine = _engine("environment.image.docker", _SAVERS)
    return _run([engine, "image", "inspect", "--format", "{{.Id}}", name], "environment.image.docker")


def save_image(name: str, archive: Path) -> None:
    """``docker save``/``podman save`` image `name` into the file `archive`."""
    engine = _engine("environment.image.docker", _SAVERS)
    _run([engine, "save", "-o", str(archive), name], "environment.image.docker")


def build_dockerfile(dockerfile: Path, archive: Path, tag: str) -> None:
    """Build `dockerfile` (its folder is the context) through docker/podman/buildah and save it to `archive`."""
    engine = _engine("environment.image.dockerfile", (*_SAVERS, "buildah"))
    item = "environment.image.dockerfile"
    if Path(engine).name == "buildah":
        _run([engine, "bud", "-f", str(dockerfile), "-t", tag, str(dockerfile.parent)], item)
        _run([engine, "push", tag, f"docker-archive:{archive}"], item)
    else:
        _run([engine, "build", "-q", "-f", str(dockerfile), "-t", tag, str(dockerfile.parent)], item)
        _run([engine, "save", "-o", str(archive), tag], item)
