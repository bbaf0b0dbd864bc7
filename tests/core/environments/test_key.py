"""The content key: stable for the same definition, different for anything that changes the built tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.environments import environment_key, load_environment
from reqbench.core.environments import key as key_module
from reqbench.core.errors import InputError
from tests.core.environments.imagekit import BASE, UPPER, docker_save, layer_tar, oci_layout


def _key(tmp_path: Path, data: dict[str, object]) -> str:
    return environment_key(load_environment(data, origin="t.yaml", base_dir=tmp_path), tmp_path)


def test_same_definition_same_key_whatever_the_order_of_keys(tmp_path: Path) -> None:
    a = {"python": {"requirements": ["tomli-w==1.0.0"], "installer": "uv"}, "setup": ["true"]}
    b = {"setup": ["true"], "python": {"installer": "uv", "requirements": ["tomli-w==1.0.0"]}}
    assert _key(tmp_path, a) == _key(tmp_path, b)
    assert len(_key(tmp_path, a)) == 64


def test_every_defining_part_changes_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "req.txt").write_text("tomli-w==1.0.0\n")
    base = {"python": {"requirements_file": "req.txt"}, "setup": ["true"]}
    seen = {_key(tmp_path, base)}
    seen.add(_key(tmp_path, {"python": {"requirements_file": "req.txt"}, "setup": ["true", "true"]}))
    seen.add(_key(tmp_path, {"python": {"requirements_file": "req.txt", "installer": "pip"}, "setup": ["true"]}))
    (tmp_path / "req.txt").write_text("tomli-w==1.0.1\n")  # the bytes of a named file
    seen.add(_key(tmp_path, base))
    monkeypatch.setattr(key_module, "FORMAT_VERSION", 999)  # reqbench's environment format version
    seen.add(_key(tmp_path, base))
    assert len(seen) == 5


def test_an_image_counts_by_its_layer_digests(tmp_path: Path) -> None:
    docker_save(tmp_path / "image.tar", [layer_tar(BASE), layer_tar(UPPER)])
    first = _key(tmp_path, {"image": {"archive": "image.tar"}})
    oci_layout(tmp_path / "layout", [layer_tar(BASE), layer_tar(UPPER)])  # same layers, gzip, other name
    assert _key(tmp_path, {"image": {"archive": "layout"}}) == first
    docker_save(tmp_path / "image.tar", [layer_tar(BASE)])
    assert _key(tmp_path, {"image": {"archive": "image.tar"}}) != first


def test_a_file_that_is_no_image_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "image.tar").write_bytes(b"not a tar")
    with pytest.raises(InputError, match="not an uncompressed tar archive"):
        _key(tmp_path, {"image": {"archive": "image.tar"}})
