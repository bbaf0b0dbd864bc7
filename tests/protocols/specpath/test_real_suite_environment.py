"""The real specpath family that brings its own environment (`suites/real/specpath/humanize-frozen-clock-feed`):
a Debian root with xmllint and a venv with pytest and freezegun, none of which reqbench installs.

In its environment the family calibrates (reference passes every probe, the base and each negative fail
their atoms). The same family without its `environment:` block is refused by calibration with a sentence
naming the hidden test module that cannot import, never scored as a silent 0. The `image` kind end to end:
the environment's root, written as a `docker save` archive, runs the same verifier as
`environment: {image: {archive: ...}}`.

The environments, the sdists and the archive are built once per machine in a fixed cache
(``$REQBENCH_TEST_ENV_CACHE`` or ``/var/tmp/reqbench-env-tests``; a Debian root takes one to two minutes
the first time), so these tests are slow only on a fresh machine.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from reqbench.core.environments import ensure_built, environment_key, load_environment
from reqbench.protocols.specpath.calibration import calibrate_family, verify_patch
from reqbench.protocols.specpath.family import load_family
from tests.support.pypi import need_release

FAMILY = Path(__file__).resolve().parents[3] / "suites" / "real" / "specpath" / "humanize-frozen-clock-feed"
CACHE = Path(os.environ.get("REQBENCH_TEST_ENV_CACHE", "/var/tmp/reqbench-env-tests"))
RELEASES = ("humanize==4.9.0", "humanize==4.10.0")

pytestmark = pytest.mark.slow


@pytest.fixture
def machine_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for tool in ("mmdebstrap", "bwrap"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    CACHE.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("REQBENCH_CACHE", str(CACHE))
    need_release(*RELEASES)
    yield CACHE


def _copy_with_environment(dest: Path, environment: dict[str, object] | None) -> Path:
    """The family copied to `dest` with its `environment:` block replaced (None: removed)."""
    shutil.copytree(FAMILY, dest)
    data = yaml.safe_load((dest / "family.yaml").read_text(encoding="utf-8"))
    data.pop("environment")
    if environment is not None:
        data["environment"] = environment
    (dest / "family.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return dest


def test_in_its_environment_the_family_calibrates(machine_cache: Path) -> None:
    family = load_family(FAMILY)
    audit = calibrate_family(family, workers=2)
    assert audit.passed, [g for g in audit.gates if not g.passed]
    assert all(all(sig or []) for sig in audit.signatures["reference"].values())


def test_without_its_environment_calibration_names_the_missing_module(
        machine_cache: Path, tmp_path: Path) -> None:
    assert shutil.which("xmllint") is None or pytest.skip("the host has xmllint")
    family = load_family(_copy_with_environment(tmp_path / "family", None))
    applied, run, _ = verify_patch(family, family.reference_text, None, tmp_path / "scratch")
    assert applied and run is not None and not run.harness_error
    assert run.collection_errors and all("test_frozen_clock.py" in e for e in run.collection_errors)
    assert "No module named 'freezegun'" in run.detail
    assert not any(run.probes.values()), "a hidden module that cannot import stops the verifier: all fail closed"
    audit = calibrate_family(family, workers=2)
    verifier = next(g for g in audit.gates if g.name == "verifier")
    assert not audit.passed and not verifier.passed
    assert "collection or import error of the hidden tests" in verifier.detail
    assert "test_frozen_clock.py" in verifier.detail


def _docker_save_of(root: Path, archive: Path) -> Path:
    """`root` as a one-layer `docker save` archive (manifest.json, config with its layer's diff_id)."""
    layer = archive.with_suffix(".layer.tar")
    with tarfile.open(layer, "w", format=tarfile.PAX_FORMAT) as tar:
        for child in sorted(root.iterdir()):
            tar.add(child, arcname=child.name)
    digest = hashlib.sha256()
    with layer.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    config = json.dumps({"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": [f"sha256:{digest.hexdigest()}"]}}).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    layer_name = f"{digest.hexdigest()}/layer.tar"
    manifest = json.dumps([{"Config": config_name, "RepoTags": ["reqbench-real:feed"], "Layers": [layer_name]}])
    tmp = archive.with_suffix(".partial")
    with tarfile.open(tmp, "w") as out:
        for name, data in ((config_name, config), ("manifest.json", manifest.encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
        out.add(layer, arcname=layer_name)
    layer.unlink()
    tmp.rename(archive)
    return archive


def test_the_environment_root_as_a_docker_save_archive_runs_the_family(
        machine_cache: Path, tmp_path: Path) -> None:
    block = yaml.safe_load((FAMILY / "family.yaml").read_text(encoding="utf-8"))["environment"]
    debian = load_environment(block, origin=str(FAMILY / "family.yaml"), base_dir=FAMILY)
    built = ensure_built(debian, FAMILY, cache=machine_cache)
    assert built.root is not None
    archive = machine_cache / f"real-feed-{environment_key(debian, FAMILY)[:16]}.docker.tar"
    if not archive.exists():  # once per machine
        _docker_save_of(built.root, archive)
    image_block = {"image": {"archive": "images/feed.tar"}, "python": block["python"]}
    dest = _copy_with_environment(tmp_path / "family", image_block)
    (dest / "images").mkdir()
    try:  # the archive must lie inside the family's folder
        os.link(archive, dest / "images" / "feed.tar")
    except OSError:
        shutil.copy(archive, dest / "images" / "feed.tar")
    family = load_family(dest)
    applied, run, detail = verify_patch(family, family.reference_text, None, tmp_path / "ref")
    assert applied and run is not None and not run.harness_error, detail or (run and run.detail)
    assert run.signature(family.probes) == [1] * len(family.probes), run.detail
    applied, run, detail = verify_patch(family, "", None, tmp_path / "base")
    assert run is not None and not run.collection_errors
    assert run.probes["test_frozen_clock.py::test_feed_entries_round_trip"], "xmllint ran inside the image"
    assert not run.probes["test_probes.py::test_naturaldelta_negative"], "the base lacks the change"
