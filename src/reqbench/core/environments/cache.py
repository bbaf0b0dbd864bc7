"""The environment cache: ``<cache>/environments/<key>/``, one folder per content key, built at most once.

`ensure_built` builds in a temporary folder beside the target (``.build-<key>-*``) and renames it into place
only when complete (its ``environment.json`` written last), so a half-built environment never has the
final name and is never used; a failed build removes its folder. A per-key lock (``.locks/<key>.lock``,
``flock``: the kernel drops it when a builder dies) makes concurrent builders of one key build it once: the
others wait and then find it. `find_built` only ever returns a complete folder. The cache lives under
``$REQBENCH_CACHE`` (`cache_root`), which the agent's sandbox masks; the sandbox binds an environment's
folders back read-only by their own paths.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reqbench.core.cache_location import cache_root
from reqbench.core.environments.build import META, build_into
from reqbench.core.environments.key import environment_key
from reqbench.core.environments.model import BuiltEnvironment, EnvironmentSpec
from reqbench.core.errors import InputError

_KEY = re.compile(r"^[0-9a-f]{64}$")
_BUILDING = ".build-"


def environments_dir(cache: Path | None = None) -> Path:
    """``<cache>/environments`` (default cache: ``$REQBENCH_CACHE`` or ``~/.cache/reqbench``)."""
    return (cache if cache is not None else cache_root()) / "environments"


@contextmanager
def key_lock(folder: Path, key: str, *, blocking: bool = True) -> Iterator[bool]:
    """Hold the build lock of `key`; yields False (without holding it) when not `blocking` and it is busy."""
    locks = folder / ".locks"
    locks.mkdir(parents=True, exist_ok=True)
    with open(locks / f"{key}.lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def _named(origin: str) -> Iterator[None]:
    """An `InputError` raised without a file names `origin`."""
    try:
        yield
    except InputError as exc:
        if exc.file is not None:
            raise
        raise InputError(exc.rule, file=origin, item=exc.item) from exc


def ensure_built(spec: EnvironmentSpec, base_dir: Path, *, cache: Path | None = None,
                 progress: Callable[[str], None] | None = None, origin: str | None = None) -> BuiltEnvironment:
    """The built environment of `spec` (relative paths against `base_dir`), building it first if needed.
    A build failure is an `InputError` (file, item, rule) and leaves nothing behind."""
    origin = origin or str(base_dir)
    with _named(origin):
        key = environment_key(spec, base_dir)
    found = find_built(key, cache=cache)
    if found is not None:
        return found
    folder = environments_dir(cache)
    folder.mkdir(parents=True, exist_ok=True)
    with key_lock(folder, key):
        found = find_built(key, cache=cache)
        if found is not None:
            return found
        scratch = Path(tempfile.mkdtemp(prefix=f"{_BUILDING}{key[:16]}-", dir=folder))
        try:
            with _named(origin):
                meta = build_into(spec, base_dir.resolve(), scratch, key=key, origin=origin, progress=progress)
            (scratch / META).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
            os.chmod(scratch, 0o755)
            if (folder / key).exists():  # a folder without its description (damaged by hand): never used
                _discard(folder, folder / key)
            os.rename(scratch, folder / key)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
    built = find_built(key, cache=cache)
    assert built is not None
    return built


def read_meta(path: Path) -> dict[str, Any] | None:
    """The description of the complete environment folder `path`, or None."""
    try:
        meta = json.loads((path / META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and meta.get("key") == path.name else None


def find_built(key: str, *, cache: Path | None = None) -> BuiltEnvironment | None:
    """The complete environment of `key` in the cache, or None (never a half-built one)."""
    if not _KEY.match(key):
        return None
    path = environments_dir(cache) / key
    meta = read_meta(path)
    if meta is None:
        return None
    layers = meta.get("layers") or []
    binds = [(path / str(layer["name"]), str(layer["mount"])) for layer in layers]
    binds += [(Path(str(h)), str(h)) for h in meta.get("host_binds") or []]
    env = {str(k): str(v) for k, v in dict(meta.get("env") or {}).items()}
    python = meta.get("python")
    return BuiltEnvironment(key=key, path=path, root=path / "root" if meta.get("root") else None,
                            binds=tuple(binds), env=env, python=str(python) if python else None)


def list_built(cache: Path | None = None) -> list[tuple[str, dict[str, Any]]]:
    """(key, description) of every complete environment in the cache, oldest first."""
    folder = environments_dir(cache)
    out = []
    if folder.is_dir():
        for entry in folder.iterdir():
            meta = read_meta(entry) if _KEY.match(entry.name) else None
            if meta is not None:
                out.append((entry.name, meta))
    return sorted(out, key=lambda item: str(item[1].get("created", "")))


def remove_built(key: str, cache: Path | None = None) -> bool:
    """Remove environment `key` (renamed aside first, so it stops being found at once); False if absent
    or being built."""
    folder = environments_dir(cache)
    path = folder / key
    if not _KEY.match(key) or not path.is_dir():
        return False
    with key_lock(folder, key, blocking=False) as held:
        if not held:
            return False
        _discard(folder, path)
    return True


def _discard(folder: Path, path: Path) -> None:
    """Rename `path` aside at once (it stops being found), then remove it."""
    doomed = Path(tempfile.mkdtemp(prefix=f"{_BUILDING}removing-", dir=folder))
    os.rename(path, doomed / "x")
    shutil.rmtree(doomed, ignore_errors=True)


def remove_stale_builds(cache: Path | None = None) -> int:
    """Remove the folders of builds that died (their key is not being built); returns how many."""
    folder = environments_dir(cache)
    removed = 0
    if not folder.is_dir():
        return 0
    for entry in folder.iterdir():
        if not entry.name.startswith(_BUILDING):
            continue
        prefix = entry.name[len(_BUILDING):].split("-")[0]
        locks = [p.stem for p in (folder / ".locks").glob(f"{prefix}*.lock")] if prefix != "removing" else []
        busy = False
        for key in locks:
            with key_lock(folder, key, blocking=False) as held:
                busy = busy or not held
        if not busy:
            shutil.rmtree(entry, ignore_errors=True)
            removed += 1
    return removed
