"""Real image files for the tests: layer tars, a `docker save` archive and an OCI layout, written with
tarfile exactly as docker and the OCI image spec lay them out (manifest.json / index.json, configs with
``rootfs.diff_ids``, blobs addressed by sha256)."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Entry:
    """One layer member: a file (data), a folder (data None, dir True), a symlink or a hard link."""

    name: str
    data: bytes | None = None
    dir: bool = False
    symlink: str | None = None
    hardlink: str | None = None
    mode: int = 0o644


def layer_tar(entries: list[Entry]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for e in entries:
            info = tarfile.TarInfo(e.name)
            info.mtime = 1_700_000_000
            info.mode = e.mode
            if e.dir:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif e.symlink is not None:
                info.type, info.linkname = tarfile.SYMTYPE, e.symlink
                tar.addfile(info)
            elif e.hardlink is not None:
                info.type, info.linkname = tarfile.LNKTYPE, e.hardlink
                tar.addfile(info)
            else:
                data = e.data or b""
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _config(layers: list[bytes]) -> bytes:
    return json.dumps({"architecture": "amd64", "os": "linux",
                       "rootfs": {"type": "layers", "diff_ids": [_sha(t) for t in layers]}}).encode()


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime = len(data), 1_700_000_000
    tar.addfile(info, io.BytesIO(data))


def docker_save(path: Path, layers: list[bytes]) -> Path:
    """A classic `docker save` archive: ``<id>/layer.tar`` members and ``manifest.json``."""
    config = _config(layers)
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    names = [f"{hashlib.sha256(t).hexdigest()}/layer.tar" for t in layers]
    with tarfile.open(path, "w") as tar:
        _add(tar, config_name, config)
        for name, data in zip(names, layers, strict=True):
            _add(tar, name, data)
        _add(tar, "manifest.json", json.dumps([{"Config": config_name, "RepoTags": ["t:1"],
                                                "Layers": names}]).encode())
    return path


def oci_layout(folder: Path, layers: list[bytes], *, gzip_layers: bool = True) -> Path:
    """An OCI image layout folder (oci-layout, index.json, blobs/sha256/...), layers gzip-compressed."""
    blobs = folder / "blobs" / "sha256"
    blobs.mkdir(parents=True)

    def put(data: bytes) -> str:
        digest = _sha(data)
        (blobs / digest.split(":")[1]).write_bytes(data)
        return digest

    config = _config(layers)
    stored = [gzip.compress(t, mtime=0) if gzip_layers else t for t in layers]
    manifest = json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": put(config),
                   "size": len(config)},
        "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": put(s), "size": len(s)}
                   for s in stored]}).encode()
    (folder / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (folder / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": [
        {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": put(manifest),
         "size": len(manifest), "platform": {"os": "linux", "architecture": "amd64"}}]}))
    return folder


def oci_archive(path: Path, folder: Path) -> Path:
    """The OCI layout `folder` as one tar archive (`podman save --format oci-archive`)."""
    with tarfile.open(path, "w") as tar:
        for item in sorted(folder.rglob("*")):
            if item.is_file():
                _add(tar, str(item.relative_to(folder)), item.read_bytes())
    return path


BASE = [Entry("etc", dir=True), Entry("etc/os-release", b"ID=test\n"), Entry("etc/keep", b"k"),
        Entry("etc/gone", b"g"), Entry("opt", dir=True), Entry("opt/app", dir=True),
        Entry("opt/app/old1", b"1"), Entry("opt/app/sub", dir=True), Entry("opt/app/sub/old2", b"2"),
        Entry("bin", dir=True), Entry("bin/tool", b"#!/bin/sh\necho tool\n", mode=0o4755),
        Entry("usr", dir=True), Entry("usr/lib", dir=True), Entry("lib", symlink="usr/lib")]
"""Bottom layer: files the upper layer deletes (whiteout) and hides (opaque folder), a set-user-ID file."""
UPPER = [Entry("etc/.wh.gone"), Entry("opt/app", dir=True), Entry("opt/app/.wh..wh..opq"),
         Entry("opt/app/new", b"n"), Entry("lib/libx.so", b"x"), Entry("etc/keep2", hardlink="etc/keep")]
"""Upper layer: a whiteout, an opaque folder with a new file, a file written through the ``lib`` link
(lands in usr/lib, inside the root) and a hard link."""
