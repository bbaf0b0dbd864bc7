"""Building one environment into a fresh folder, in a fixed order: the root file system (debian or image),
then the python and node layers, then the ``setup`` commands inside the result (network on, writable), and
last the description ``environment.json`` that makes the folder an environment (`cache` renames the folder
into place only after that).

Folder layout: ``root/`` (a complete ``/``), ``python/``, ``node/``, ``local/`` (what set-up commands put
under ``/opt/reqbench-env/local``), ``build.log``, ``environment.json``.
"""

from __future__ import annotations

import datetime
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.environments import engines
from reqbench.core.environments.buildbox import STANDARD_PATH, Box, run_in_box
from reqbench.core.environments.debian_root import build_debian
from reqbench.core.environments.image_unpack import unpack_image
from reqbench.core.environments.layers import Layer
from reqbench.core.environments.model import FORMAT_VERSION, MOUNT_ROOT, EnvironmentSpec, resolved_file
from reqbench.core.environments.node_layer import build_node
from reqbench.core.environments.python_layer import build_python

META = "environment.json"
LOCAL_MOUNT = f"{MOUNT_ROOT}/local"
_ROOT_DIRS = ("proc", "dev", "tmp", "sys", "run", "opt/reqbench-env/python", "opt/reqbench-env/node",
              "opt/reqbench-env/local")


def build_into(spec: EnvironmentSpec, base: Path, folder: Path, *, key: str, origin: str,
               progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Build `spec` into the empty `folder`; returns the description written to ``environment.json``."""
    say = progress or (lambda _message: None)
    log = folder / "build.log"
    log.touch()
    root: Path | None = None
    if spec.debian is not None:
        say(f"debian root ({spec.debian.suite}, mmdebstrap)")
        root = folder / "root"
        build_debian(spec.debian, root, origin=origin, log=log)
    elif spec.image is not None:
        say("image root (unpacking layers)")
        root = folder / "root"
        root.mkdir()
        _image_root(spec, base, root, folder, origin=origin, key=key)
    if root is not None:
        for name in _ROOT_DIRS:
            (root / name).mkdir(parents=True, exist_ok=True)
    layers: list[Layer] = []
    if spec.python is not None:
        say("python venv")
        (folder / "python").mkdir()
        layers.append(build_python(spec.python, base, folder / "python", origin=origin, root=root, log=log))
    if spec.node is not None:
        say("node modules (npm ci)")
        (folder / "node").mkdir()
        layers.append(build_node(spec.node, base, folder / "node", origin=origin, root=root, log=log))
    if root is not None:
        for layer in layers:
            for host in layer.host_binds:
                (root / host.lstrip("/")).mkdir(parents=True, exist_ok=True)
    local = folder / "local"
    local.mkdir()
    if spec.setup:
        env = environment_variables(layers, with_local=True)
        box = Box(root=root, layers=(*((folder / layer.name, layer.mount) for layer in layers), (local, LOCAL_MOUNT)),
                  ro_binds=tuple((Path(h), h) for layer in layers for h in layer.host_binds), env=env)
        for index, command in enumerate(spec.setup):
            say(f"setup {index + 1}/{len(spec.setup)}")
            run_in_box(box, ["/bin/sh", "-c", command], what=f"environment.setup[{index}]", log=log)
    if root is not None:
        for leftover in ("opt/reqbench-inputs", "opt/reqbench-uv", "opt/reqbench-build"):
            shutil.rmtree(root / leftover, ignore_errors=True)
    has_local = any(local.iterdir())
    if not has_local:
        local.rmdir()
    python = next((layer.python for layer in layers if layer.python), None)
    return {
        "format": FORMAT_VERSION, "key": key, "origin": origin,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "spec": spec.model_dump(mode="json", exclude_defaults=True),
        "root": "root" if root is not None else None,
        "layers": [{"name": layer.name, "mount": layer.mount} for layer in layers]
                  + ([{"name": "local", "mount": LOCAL_MOUNT}] if has_local else []),
        "host_binds": sorted({h for layer in layers for h in layer.host_binds}),
        "env": environment_variables(layers, with_local=has_local),
        "python": python if python is not None else ("/usr/bin/python3" if spec.python is not None else None),
    }


def environment_variables(layers: list[Layer], *, with_local: bool) -> dict[str, str]:
    """PATH (the layers' bin folders, then the standard system PATH) and the layers' own variables."""
    prefix = [p for layer in layers for p in layer.path_prefix] + ([f"{LOCAL_MOUNT}/bin"] if with_local else [])
    env = {"PATH": ":".join([*prefix, STANDARD_PATH])}
    for layer in layers:
        env.update(layer.env)
    return env


def _image_root(spec: EnvironmentSpec, base: Path, root: Path, folder: Path, *, origin: str, key: str) -> None:
    image = spec.image
    assert image is not None
    if image.archive:
        unpack_image(resolved_file(base, image.archive, origin=origin, item="environment.image.archive"), root,
                     origin=origin)
        return
    with tempfile.TemporaryDirectory(dir=folder) as scratch:
        archive = Path(scratch) / "image.tar"
        if image.docker:
            engines.save_image(image.docker, archive)
        else:
            assert image.dockerfile is not None
            dockerfile = resolved_file(base, image.dockerfile, origin=origin, item="environment.image.dockerfile")
            engines.build_dockerfile(dockerfile, archive, f"reqbench-env:{key[:16]}")
        unpack_image(archive, root, origin=origin)
