"""A run directory's life: create it for a run, or reopen it for ``--resume`` only when nothing that
defines the run has changed (estimand options, protocol, suite path, the suite's content, the inputs it reads
from outside the suite, `run_inputs`), and remove a directory this invocation created when the run fails before
its first attempt.

The suite's content is recorded as a file manifest ``{relative path: sha256}`` (the tree rules of
`core.workspace.trees`: ``.git``, ``__pycache__`` and ``*.pyc`` are not content) plus its hash; a resume on
a changed suite names the files that changed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from reqbench import __version__
from reqbench.core.errors import InputError
from reqbench.core.execute.options import differing_options, options_to_json
from reqbench.core.execute.run_inputs import changed_inputs
from reqbench.core.execute.types import RunOptions
from reqbench.core.hashing import sha256_json
from reqbench.core.store import RunMeta, RunStore, is_run_dir, utc_now
from reqbench.core.workspace.trees import walk_tree


def suite_manifest(suite: Path) -> dict[str, str]:
    """``{relative path: sha256 of the bytes (or of a symlink's target text)}`` of every file of `suite`."""
    out: dict[str, str] = {}
    for entry in walk_tree(suite):
        if entry.kind == "link":
            data = str(Path(entry.path).readlink()).encode("utf-8", "surrogateescape")
            out[entry.relpath] = hashlib.sha256(data).hexdigest()
            continue
        digest = hashlib.sha256()
        with open(entry.path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
        out[entry.relpath] = digest.hexdigest()
    return out


def changed_files(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """Paths added, removed or changed between two manifests, sorted."""
    return sorted(p for p in set(old) | set(new) if old.get(p) != new.get(p))


def check_run_dir(run_dir: Path, suite: Path, options: RunOptions, *, resume: bool,
                  protocol: str | None = None) -> None:
    """Refuse a run directory that cannot take this run: `InputError` for a folder that is not a run, an
    existing run without `resume`, or a resume whose suite, options (or, given, protocol) differ. Cheap, so
    `core.execute.lanes.plan_lanes` calls it before preflight and validation (which can take minutes)."""
    if not is_run_dir(run_dir):
        if run_dir.exists() and (not run_dir.is_dir() or any(run_dir.iterdir())):
            raise InputError("exists and is not a run directory; choose another --out", file=str(run_dir))
        return
    if not resume:
        raise InputError("run directory already exists; pass --resume to continue it (`reqbench run --resume "
                         f"{run_dir}` takes its stored options) or choose another --out", file=str(run_dir))
    with RunStore.open(run_dir) as store:  # writable: an older store is upgraded, as the resume would
        meta = store.meta
    diffs = differing_options(meta.options, options_to_json(options))
    if protocol is not None and meta.protocol != protocol:
        diffs.insert(0, "protocol")
    if Path(meta.suite_path) != suite:
        diffs.insert(0, "suite")
    if diffs:
        first = diffs[0]
        raise InputError(f"--resume with different options: {', '.join(diffs)} differ from the run "
                         f"(stored {first}: {_stored(meta, first)}); `reqbench run --resume {run_dir}` alone "
                         "reuses the stored ones", file=str(run_dir))


def open_or_resume(run_dir: Path, protocol: str, suite: Path, options: RunOptions, *, resume: bool,
                   provenance: dict[str, Any]) -> tuple[RunStore, bool]:
    """The run's store and whether this call created it (see module docstring for the resume rules)."""
    check_run_dir(run_dir, suite, options, resume=resume, protocol=protocol)
    manifest = suite_manifest(suite)
    provenance = {**provenance, "suite_hash": sha256_json(manifest), "suite_files": manifest}
    if not is_run_dir(run_dir):
        if run_dir.is_dir():
            run_dir.rmdir()
        meta = RunMeta(suite_path=str(suite), protocol=protocol, options=options_to_json(options),
                       created=utc_now(), reqbench_version=__version__, provenance=provenance)
        return RunStore.create(run_dir, meta), True
    store = RunStore.open(run_dir)
    meta = store.meta
    stored_environments = meta.provenance.get("environments")
    if stored_environments != provenance.get("environments"):
        store.close()
        raise InputError("the run's environments changed since it started (a task's or --environment's "
                         "block, or a file it names): a resumed run must run in the same environments; "
                         "restore them or start a new run", file=str(run_dir), item="environment")
    changed = changed_inputs(meta.provenance, provenance)  # `core.execute.run_inputs`
    if changed:
        store.close()
        raise InputError(f"what the run reads from outside its suite changed since it started "
                         f"({', '.join(changed)}): a resumed run must read the same inputs; restore them "
                         "or start a new run", file=str(run_dir), item=changed[0])
    stored_files = meta.provenance.get("suite_files")
    if isinstance(stored_files, dict):
        changed = changed_files(stored_files, manifest)
        if changed:
            store.close()
            shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
            raise InputError(f"the suite changed since the run started ({shown}); a resumed run must "
                             "evaluate the same suite: restore it or start a new run", file=str(suite))
    return store, False


def _stored(meta: RunMeta, name: str) -> str:
    if name == "suite":
        return meta.suite_path
    if name == "protocol":
        return meta.protocol
    if name.startswith("agent_options."):
        return json.dumps(meta.options.get("agent_options", {}).get(name.split(".", 1)[1]))
    return json.dumps(meta.options.get(name))


def discard_if_empty(store: RunStore, created: bool) -> bool:
    """Close and delete a run directory this invocation `created` when no attempt was stored (the run failed
    before its first row finished); True when it was removed."""
    if not created or store.counts()["attempts"]:
        return False
    run_dir = store.run_dir
    store.close()
    shutil.rmtree(run_dir, ignore_errors=True)
    return True
