"""The ``node`` kind: ``npm ci`` from package.json + package-lock.json into a layer bound read-only at
``/opt/reqbench-env/node`` (``node_modules`` below it, on NODE_PATH, its ``.bin`` on PATH).

Without a root, the host's npm installs (with the user's npm cache); with a root, the root's npm does,
inside the build sandbox, at the layer's final path.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from reqbench.core.environments.buildbox import Box, run_in_box
from reqbench.core.environments.layers import Layer, run_logged
from reqbench.core.environments.model import NODE_MOUNT, NodeSpec, resolved_file
from reqbench.core.errors import InputError


def build_node(spec: NodeSpec, base: Path, folder: Path, *, origin: str, root: Path | None, log: Path) -> Layer:
    """Fill `folder` with ``node_modules`` from ``npm ci`` of the spec's package folder."""
    source = resolved_file(base, spec.package_json, origin=origin, item="environment.node.package_json")
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(resolved_file(source, name, origin=origin, item="environment.node.package_json"),
                     folder / name)
    if root is None:
        npm = shutil.which("npm")
        if npm is None:
            raise InputError("the node kind needs npm, which is not installed", file=origin, item="environment.node")
        run_logged([npm, "ci", "--no-audit", "--no-fund"], what="environment.node", log=log, cwd=folder)
    else:
        if not (root / "usr" / "bin" / "npm").exists():
            raise InputError("the root file system has no /usr/bin/npm (add npm to debian.packages)",
                             file=origin, item="environment.node")
        box = Box(root=root, layers=((folder, NODE_MOUNT),))
        run_in_box(box, ["/bin/sh", "-c", f"cd {NODE_MOUNT} && npm ci --no-audit --no-fund"],
                   what="environment.node", log=log)
    return Layer(name=folder.name, mount=NODE_MOUNT, path_prefix=[f"{NODE_MOUNT}/node_modules/.bin"],
                 env={"NODE_PATH": f"{NODE_MOUNT}/node_modules"})
