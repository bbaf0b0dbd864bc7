"""The node kind: ``npm ci`` from a package-lock into a layer that node finds at its bind path
(``/opt/reqbench-env/node/node_modules`` on NODE_PATH) under bubblewrap, read-only there."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from reqbench.core.environments import ensure_built, load_environment
from reqbench.core.environments.buildbox import box_args, built_box

PACKAGE = {"name": "t", "version": "1.0.0", "private": True, "dependencies": {"left-pad": "1.3.0"}}
LOCK = {"name": "t", "version": "1.0.0", "lockfileVersion": 3, "requires": True, "packages": {
    "": {"name": "t", "version": "1.0.0", "dependencies": {"left-pad": "1.3.0"}},
    "node_modules/left-pad": {"version": "1.3.0", "integrity": "sha512-XI5MPzVNApjAyhQzphX8BkmKsKUxD4LdyK24iZeQGi"
                              "nBN9yTQT3bFlCBy/aVx2HrNcqQGsdot8ghrjyrvMCoEA==", "license": "WTFPL"}}}


def test_node_modules_layer_is_found_at_its_bind_path(tmp_path: Path, require_bwrap: None) -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node and npm are not installed")
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text(json.dumps(PACKAGE))
    (tmp_path / "web" / "package-lock.json").write_text(json.dumps(LOCK))
    spec = load_environment({"node": {"package_json": "web"}}, origin="task.yaml", base_dir=tmp_path)
    built = ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert built.env["NODE_PATH"] == "/opt/reqbench-env/node/node_modules"
    base = box_args(built_box(built.root, built.binds, built.env))
    code = "console.log(require('left-pad')('7', 3, '0'))"
    done = subprocess.run([*base, "--", "node", "-e", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout == "007\n", done.stderr
    denied = subprocess.run([*base, "--", "rm", "-r", "/opt/reqbench-env/node/node_modules/left-pad"],
                            capture_output=True, text=True, timeout=60)
    assert denied.returncode != 0 and (built.path / "node" / "node_modules" / "left-pad").is_dir()
