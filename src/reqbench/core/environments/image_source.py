"""Reading a container image without a daemon: the ordered layers of a `docker save`/`podman save` archive,
an OCI archive or an OCI layout folder, each with the digest of its uncompressed tar (``rootfs.diff_ids`` of
the image config), which `image_unpack` checks while it reads.

A docker-save archive has ``manifest.json`` (``Config``, ``Layers``); an OCI image has ``index.json``
pointing (possibly through an image index, where linux/amd64 or else the first entry is chosen) at a
manifest whose ``config`` and ``layers`` are blobs under ``blobs/<algorithm>/<hex>``. Member names are
checked: nothing absolute, no ``..``.
"""

from __future__ import annotations

import json
import os
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from reqbench.core.errors import InputError

_INDEX_TYPES = ("application/vnd.oci.image.index.v1+json",
                "application/vnd.docker.distribution.manifest.list.v2+json")


@dataclass(frozen=True)
class LayerRef:
    """One layer: the member/file that holds it and the sha256 of its uncompressed tar (None: unknown)."""

    name: str
    diff_id: str | None


class ImageReader:
    """Opens the members of an image, whether a tar archive or a folder."""

    def __init__(self, location: Path, origin: str) -> None:
        self.location = location
        self.origin = origin
        self._tar: tarfile.TarFile | None = None
        self._members: dict[str, tarfile.TarInfo] = {}
        if location.is_file():
            try:
                self._tar = tarfile.open(location, "r:")
            except (tarfile.TarError, OSError) as exc:
                raise InputError(f"not an uncompressed tar archive ({exc}); decompress it first",
                                 file=origin, item="environment.image.archive") from exc
            for member in self._tar.getmembers():
                self._members[str(PurePosixPath(member.name))] = member

    def close(self) -> None:
        if self._tar is not None:
            self._tar.close()

    def _fail(self, rule: str) -> InputError:
        return InputError(rule, file=self.origin, item=f"environment.image.archive ({self.location.name})")

    def _safe(self, name: str) -> str:
        path = PurePosixPath(name)
        if path.is_absolute() or ".." in path.parts:
            raise self._fail(f"member {name!r} leaves the image")
        return str(path)

    def exists(self, name: str) -> bool:
        name = self._safe(name)
        return name in self._members if self._tar is not None else (self.location / name).is_file()

    @contextmanager
    def open(self, name: str) -> Iterator[IO[bytes]]:
        name = self._safe(name)
        if self._tar is not None:
            member = self._members.get(name)
            handle = self._tar.extractfile(member) if member is not None and member.isfile() else None
            if handle is None:
                raise self._fail(f"has no file {name!r}")
            with handle:
                yield handle
        else:
            path = self.location / name
            if path.is_symlink() or not path.is_file():
                raise self._fail(f"has no file {name!r}")
            with open(path, "rb") as fh:
                yield fh

    @contextmanager
    def region(self, name: str) -> Iterator[tuple[int, int, int]]:
        """``(fd, offset, size)`` of member `name`'s bytes (the fd is open for the block)."""
        name = self._safe(name)
        if self._tar is not None:
            member = self._members.get(name)
            if member is None or not member.isreg() or member.issparse():
                raise self._fail(f"has no file {name!r}")
            fd = os.open(self.location, os.O_RDONLY | os.O_CLOEXEC)
            offset, size = member.offset_data, member.size
        else:
            path = self.location / name
            if path.is_symlink() or not path.is_file():
                raise self._fail(f"has no file {name!r}")
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
            offset, size = 0, os.fstat(fd).st_size
        try:
            yield fd, offset, size
        finally:
            os.close(fd)

    def json(self, name: str) -> Any:
        with self.open(name) as fh:
            try:
                return json.load(fh)
            except ValueError as exc:
                raise self._fail(f"{name} is not JSON: {exc}") from exc

    def blob(self, digest: str) -> str:
        algorithm, _, hexdigest = str(digest).partition(":")
        if algorithm != "sha256" or len(hexdigest) != 64 or not all(c in "0123456789abcdef" for c in hexdigest):
            raise self._fail(f"unsupported digest {digest!r} (sha256 only)")
        return f"blobs/sha256/{hexdigest}"


def image_layers(reader: ImageReader) -> list[LayerRef]:
    """The layers of the image, bottom first, with their uncompressed digests from the config."""
    if reader.exists("manifest.json"):
        manifest = reader.json("manifest.json")
        if not isinstance(manifest, list) or not manifest or not isinstance(manifest[0], dict):
            raise reader._fail("manifest.json is not a docker-save manifest list")
        if len(manifest) > 1:
            raise reader._fail("holds more than one image; save exactly one")
        entry = manifest[0]
        config = reader.json(entry.get("Config", ""))
        names = [str(n) for n in entry.get("Layers", [])]
    elif reader.exists("index.json"):
        descriptor = _pick(reader, reader.json("index.json"))
        while descriptor.get("mediaType") in _INDEX_TYPES:
            descriptor = _pick(reader, reader.json(reader.blob(descriptor.get("digest", ""))))
        image_manifest = reader.json(reader.blob(descriptor.get("digest", "")))
        config = reader.json(reader.blob(image_manifest.get("config", {}).get("digest", "")))
        names = [reader.blob(layer.get("digest", "")) for layer in image_manifest.get("layers", [])]
    else:
        raise reader._fail("is neither a docker-save archive (manifest.json) nor an OCI image (index.json)")
    diff_ids = list(config.get("rootfs", {}).get("diff_ids", [])) if isinstance(config, dict) else []
    if diff_ids and len(diff_ids) != len(names):
        raise reader._fail(f"config lists {len(diff_ids)} layer digests for {len(names)} layers")
    return [LayerRef(name, diff_ids[i] if diff_ids else None) for i, name in enumerate(names)]


def _pick(reader: ImageReader, index: Any) -> dict[str, Any]:
    manifests = index.get("manifests", []) if isinstance(index, dict) else []
    if not manifests:
        raise reader._fail("index.json lists no manifests")
    for descriptor in manifests:
        platform = descriptor.get("platform") or {}
        if platform.get("os") == "linux" and platform.get("architecture") == "amd64":
            return dict(descriptor)
    return dict(manifests[0])


def layer_digests(location: Path, origin: str) -> list[str] | None:
    """The uncompressed digests of the image's layers, bottom first (what its root file system is made of,
    checked again while unpacking); None when the config does not list them."""
    reader = ImageReader(location, origin)
    try:
        refs = image_layers(reader)
    finally:
        reader.close()
    digests = [ref.diff_id for ref in refs]
    return None if any(d is None for d in digests) else [str(d) for d in digests]
