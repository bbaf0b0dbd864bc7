"""Minimal base sources and patch application, used only until `reqbench.core.workspace` is present.

Supports ``dir:PATH`` and ``pypi:NAME==VERSION`` (sdist from the PyPI simple index, sha256 from the
index, cached under ``$REQBENCH_CACHE`` or ``~/.cache/reqbench``); patches are applied with ``git apply``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx


class PatchApplyError(Exception):
    """The patch does not apply to the exact base."""


@dataclass(frozen=True)
class RepoSource:
    kind: str
    ref: str

    @classmethod
    def parse(cls, text: str) -> RepoSource:
        kind, sep, ref = text.partition(":")
        if not sep or kind not in ("dir", "pypi"):
            raise ValueError(f"unsupported source {text!r} (dir:PATH or pypi:NAME==VERSION)")
        if kind == "pypi" and "==" not in ref:
            raise ValueError(f"pypi source needs NAME==VERSION: {text!r}")
        return cls(kind, ref)


@dataclass(frozen=True)
class Workspace:
    path: Path


def _cache() -> Path:
    root = Path(os.environ.get("REQBENCH_CACHE", Path.home() / ".cache" / "reqbench")) / "sdists"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _sdist(name: str, version: str) -> Path:
    fname_re = re.compile(rf'href="([^"]+/({re.escape(name)}-{re.escape(version)}\.tar\.gz))#sha256=([0-9a-f]+)"',
                          re.IGNORECASE)
    for cached in _cache().glob(f"{name}-{version}.tar.gz"):
        return cached
    index = httpx.get(f"https://pypi.org/simple/{name}/", timeout=60, follow_redirects=True).text
    m = fname_re.search(index)
    if not m:
        raise ValueError(f"no sdist {name}=={version} on the index")
    url, fname, digest = m.group(1), m.group(2), m.group(3)
    data = httpx.get(url, timeout=120, follow_redirects=True).content
    if hashlib.sha256(data).hexdigest() != digest:
        raise ValueError(f"sha256 mismatch for {fname}")
    dest = _cache() / fname
    tmp = dest.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(dest)
    return dest


def materialize(source: RepoSource, dest: Path) -> Workspace:
    dest = Path(dest)
    if source.kind == "dir":
        shutil.copytree(source.ref, dest)
        return Workspace(dest)
    name, _, version = source.ref.partition("==")
    archive = _sdist(name, version)
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(archive) as tar:
        tar.extractall(tmp, filter="data")
        (top,) = [p for p in Path(tmp).iterdir() if p.is_dir()]
        shutil.copytree(top, dest)
    return Workspace(dest)


def apply_patch(ws_path: Path, patch_text: str) -> None:
    with tempfile.NamedTemporaryFile("w", suffix=".patch", delete=False, encoding="utf-8") as fh:
        fh.write(patch_text if patch_text.endswith("\n") else patch_text + "\n")
        name = fh.name
    try:
        env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(Path(ws_path).resolve().parent)}
        proc = subprocess.run(["git", "apply", "--whitespace=nowarn", name], cwd=ws_path,
                              capture_output=True, text=True, env=env)
    finally:
        os.unlink(name)
    if proc.returncode != 0:
        raise PatchApplyError(proc.stderr.strip() or "patch does not apply")
