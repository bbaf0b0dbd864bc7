"""Built once, atomically: a failing build leaves nothing usable, concurrent builders of one key build it
once, and only complete folders are ever found."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from reqbench.core.environments import ensure_built, environment_key, find_built, load_environment
from reqbench.core.environments.cache import environments_dir, list_built, remove_built, remove_stale_builds
from reqbench.core.errors import InputError


def test_failing_setup_leaves_nothing_usable(tmp_path: Path, require_bwrap: None) -> None:
    spec = load_environment({"setup": ["echo half > /opt/reqbench-env/local/x", "exit 3"]},
                            origin="t.yaml", base_dir=tmp_path)
    with pytest.raises(InputError) as caught:
        ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert (caught.value.file, caught.value.item) == (str(tmp_path), "environment.setup[1]")
    assert "exit code 3" in caught.value.rule
    key = environment_key(spec, tmp_path)
    assert find_built(key, cache=tmp_path / "cache") is None
    assert [p.name for p in environments_dir(tmp_path / "cache").iterdir()] == [".locks"]


def test_a_folder_without_its_description_is_never_found_and_is_rebuilt(tmp_path: Path, require_bwrap: None) -> None:
    spec = load_environment({"setup": ["echo ok > /opt/reqbench-env/local/x"]}, origin="t.yaml", base_dir=tmp_path)
    key = environment_key(spec, tmp_path)
    half = environments_dir(tmp_path / "cache") / key
    (half / "local").mkdir(parents=True)
    (half / "local" / "x").write_text("half\n")
    assert find_built(key, cache=tmp_path / "cache") is None
    assert list_built(tmp_path / "cache") == []
    built = ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert (built.path / "local" / "x").read_text() == "ok\n"


def _build(base: str, cache: str, queue: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    spec = load_environment({"setup": ["echo built >> /opt/reqbench-env/local/count; sleep 0.5"]},
                            origin="t.yaml", base_dir=Path(base))
    queue.put(str(ensure_built(spec, Path(base), cache=Path(cache)).path))


def test_concurrent_builders_of_one_key_build_once(tmp_path: Path, require_bwrap: None) -> None:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_build, args=(str(tmp_path), str(tmp_path / "cache"), queue)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    paths = {queue.get(timeout=5) for _ in procs}
    assert len(paths) == 1
    path = Path(paths.pop())
    assert (path / "local" / "count").read_text() == "built\n"  # the setup ran once
    assert [p.name for p in environments_dir(tmp_path / "cache").iterdir() if not p.name.startswith(".")] == [path.name]


def test_prune_removes_environments_and_dead_builds(tmp_path: Path, require_bwrap: None) -> None:
    spec = load_environment({"setup": ["true"]}, origin="t.yaml", base_dir=tmp_path)
    built = ensure_built(spec, tmp_path, cache=tmp_path)
    dead = environments_dir(tmp_path) / f".build-{built.key[:16]}-xyz"
    dead.mkdir()
    assert remove_stale_builds(tmp_path) == 1 and not dead.exists()
    assert remove_built(built.key, tmp_path)
    assert find_built(built.key, cache=tmp_path) is None and not built.path.exists()
    assert os.listdir(environments_dir(tmp_path)) == [".locks"]
