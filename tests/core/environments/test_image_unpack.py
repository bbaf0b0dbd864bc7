"""The image kind: real `docker save` archives, OCI layouts and OCI archives unpacked without any daemon,
whiteouts and opaque folders honoured, digests checked, escaping members refused."""

from __future__ import annotations

import io
import os
import stat
import tarfile
from pathlib import Path

import pytest

from reqbench.core.environments import ensure_built, load_environment
from reqbench.core.environments.image_source import ImageReader, image_layers
from reqbench.core.environments.image_unpack import unpack_image
from reqbench.core.errors import InputError
from tests.core.environments.imagekit import BASE, UPPER, Entry, docker_save, layer_tar, oci_archive, oci_layout


def _check_root(root: Path) -> None:
    assert (root / "etc/os-release").read_bytes() == b"ID=test\n"
    assert not (root / "etc/gone").exists(), "whiteout ignored"
    assert not (root / "etc/.wh.gone").exists(), "whiteout marker unpacked as a file"
    assert sorted(p.name for p in (root / "opt/app").iterdir()) == ["new"], "opaque folder kept lower files"
    assert (root / "usr/lib/libx.so").read_bytes() == b"x"
    assert os.readlink(root / "lib") == "usr/lib"
    assert os.stat(root / "etc/keep2").st_ino == os.stat(root / "etc/keep").st_ino
    mode = os.stat(root / "bin/tool").st_mode
    assert mode & stat.S_ISUID == 0 and mode & 0o111


def test_docker_save_archive_unpacks_with_whiteouts_and_opaque_dirs(tmp_path: Path) -> None:
    archive = docker_save(tmp_path / "image.tar", [layer_tar(BASE), layer_tar(UPPER)])
    (tmp_path / "root").mkdir()
    assert unpack_image(archive, tmp_path / "root", origin="t.yaml") == 2
    _check_root(tmp_path / "root")


def test_oci_layout_folder_and_oci_archive_unpack_the_same_tree(tmp_path: Path) -> None:
    layout = oci_layout(tmp_path / "layout", [layer_tar(BASE), layer_tar(UPPER)])
    archive = oci_archive(tmp_path / "oci.tar", layout)
    for source, name in ((layout, "a"), (archive, "b")):
        (tmp_path / name).mkdir()
        unpack_image(source, tmp_path / name, origin="t.yaml")
        _check_root(tmp_path / name)


def test_layer_that_does_not_match_its_digest_is_refused(tmp_path: Path) -> None:
    layout = oci_layout(tmp_path / "layout", [layer_tar(BASE)], gzip_layers=False)
    blob = next(p for p in (layout / "blobs/sha256").iterdir() if p.stat().st_size > 1000)
    data = bytearray(blob.read_bytes())
    data[data.index(b"ID=test")] = ord("X")
    blob.write_bytes(bytes(data))
    (tmp_path / "root").mkdir()
    with pytest.raises(InputError, match="does not match its digest"):
        unpack_image(layout, tmp_path / "root", origin="t.yaml")


@pytest.mark.parametrize("entries, rule", [
    ([Entry("../escape", b"x")], "leaves the root"),
    ([Entry("/etc/abs", b"x")], "leaves the root"),
    ([Entry("a", b"x"), Entry("b", hardlink="../../etc/passwd")], "leaves the root"),
])
def test_escaping_members_are_refused(tmp_path: Path, entries: list[Entry], rule: str) -> None:
    archive = docker_save(tmp_path / "image.tar", [layer_tar(entries)])
    (tmp_path / "root").mkdir()
    with pytest.raises(InputError, match=rule):
        unpack_image(archive, tmp_path / "root", origin="t.yaml")


def test_a_symlink_to_the_host_cannot_carry_a_write_outside_the_root(tmp_path: Path) -> None:
    outside = tmp_path / "host"
    outside.mkdir()
    layers = [layer_tar([Entry("evil", symlink=str(outside)), Entry("up", symlink="../../..")]),
              layer_tar([Entry("evil/planted", b"x"), Entry("up/planted2", b"y")])]
    archive = docker_save(tmp_path / "image.tar", layers)
    root = tmp_path / "root"
    root.mkdir()
    unpack_image(archive, root, origin="t.yaml")
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "planted2").exists()
    # followed inside the root, as the kernel would with the root as /
    assert (root / str(outside).lstrip("/") / "planted").read_bytes() == b"x"
    assert (root / "planted2").read_bytes() == b"y"


def test_image_environment_is_built_once_into_the_cache(tmp_path: Path) -> None:
    docker_save(tmp_path / "image.tar", [layer_tar(BASE), layer_tar(UPPER)])
    spec = load_environment({"image": {"archive": "image.tar"}}, origin="task.yaml", base_dir=tmp_path)
    built = ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert built.root is not None and built.python is None
    _check_root(built.root)
    for mount_point in ("proc", "dev", "tmp", "opt/reqbench-env/python"):
        assert (built.root / mount_point).is_dir()
    assert ensure_built(spec, tmp_path, cache=tmp_path / "cache") == built


def test_an_upper_layer_replaces_files_folders_and_links_of_a_lower_one(tmp_path: Path) -> None:
    lower = [Entry("a", b"old"), Entry("d", dir=True), Entry("d/x", b"x"), Entry("l", symlink="a")]
    upper = [Entry("a", b"new"), Entry("d", b"now a file"), Entry("l", b"now a file too")]
    archive = docker_save(tmp_path / "image.tar", [layer_tar(lower), layer_tar(upper)])
    root = tmp_path / "root"
    root.mkdir()
    unpack_image(archive, root, origin="t.yaml")
    assert [(root / n).read_bytes() for n in ("a", "d", "l")] == [b"new", b"now a file", b"now a file too"]
    assert not (root / "l").is_symlink()


@pytest.mark.parametrize("fmt", [tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT])
def test_long_names_in_every_tar_format(tmp_path: Path, fmt: int) -> None:
    long_dir = "usr/share/" + "/".join(["deep-folder-name"] * 6)
    long_name = f"{long_dir}/a-file-name-long-enough-to-need-the-extension-{'x' * 40}.txt"
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as tar:
        info = tarfile.TarInfo(long_name)
        info.size, info.mode, info.uid, info.gid = 5, 0o640, 0, 0
        tar.addfile(info, io.BytesIO(b"hello"))
        link = tarfile.TarInfo("usr/link")
        link.type, link.linkname = tarfile.SYMTYPE, long_name if fmt != tarfile.USTAR_FORMAT else "short"
        tar.addfile(link)
    archive = docker_save(tmp_path / "image.tar", [buf.getvalue()])
    root = tmp_path / "root"
    root.mkdir()
    unpack_image(archive, root, origin="t.yaml")
    assert (root / long_name).read_bytes() == b"hello"
    assert stat.S_IMODE(os.stat(root / long_name).st_mode) == 0o640
    assert os.readlink(root / "usr/link") == (long_name if fmt != tarfile.USTAR_FORMAT else "short")


def test_a_corrupt_header_is_refused(tmp_path: Path) -> None:
    data = bytearray(layer_tar([Entry("etc/a", b"x")]))
    data[0] ^= 0x01  # the name changes, the checksum does not
    archive = docker_save(tmp_path / "image.tar", [bytes(data)])
    (tmp_path / "root").mkdir()
    with pytest.raises(InputError, match="checksum"):
        unpack_image(archive, tmp_path / "root", origin="t.yaml")


def test_modes_survive_the_umask(tmp_path: Path) -> None:
    entries = [Entry("shared", b"x", mode=0o666), Entry("private", b"x", mode=0o600), Entry("run", b"x", mode=0o755)]
    archive = docker_save(tmp_path / "image.tar", [layer_tar(entries)])
    root = tmp_path / "root"
    root.mkdir()
    old = os.umask(0o077)
    try:
        unpack_image(archive, root, origin="t.yaml")
    finally:
        os.umask(old)
    assert {n: stat.S_IMODE(os.stat(root / n).st_mode) for n in ("shared", "private", "run")} == {
        "shared": 0o666, "private": 0o600, "run": 0o755}


def test_a_damaged_gzip_layer_is_refused(tmp_path: Path) -> None:
    layout = oci_layout(tmp_path / "layout", [layer_tar(BASE), layer_tar(UPPER)])
    reader = ImageReader(layout, "t.yaml")
    blob = layout / image_layers(reader)[0].name
    data = bytearray(blob.read_bytes())
    data[len(data) // 2] ^= 0xFF
    blob.write_bytes(bytes(data))
    (tmp_path / "root").mkdir()
    with pytest.raises(InputError, match="cannot be read|does not match its digest"):
        unpack_image(layout, tmp_path / "root", origin="t.yaml")
