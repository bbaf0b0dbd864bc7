"""`import_tasks`: Harbor task folders -> a harbor suite (``suite.yaml`` + ``tasks/<name>/`` verbatim + an
``environment.yaml`` per task whose ``environment/`` maps to a reqbench environment block).

Every task is read and checked before anything is written; the suite is built beside its destination and
renamed into place, so a bad task leaves nothing half-written. The report names, one line each, every
field that has no meaning here and every environment part that needs something reqbench does not have.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.workspace import copy_tree
from reqbench.core.workspace.discard import discard
from reqbench.protocols.harbor.setup import ENVIRONMENT_FILE, dockerfile_mapping, task_setup
from reqbench.protocols.harbor.taskfile import read_task


def _folder_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def import_tasks(folders: list[Path], out: Path, *, host_toolchain: bool = False) -> list[str]:
    """Write the suite at `out` (must not exist) and return the report lines."""
    out = Path(out)
    if out.exists():
        raise InputError("already exists; choose a new folder", file=str(out))
    report: list[str] = []
    names: list[str] = []
    for folder in folders:
        task = read_task(folder)
        task_setup(folder)
        name = _folder_name(task.name)
        if name in names:
            raise InputError(f"two tasks import as {name!r}", file=str(folder / "task.toml"), item="task.name")
        names.append(name)
        report += [f"{name}: {line}" for line in task.unmapped]
    build = tempdirs.make("harbor-import", out.absolute().parent, hidden=True)
    try:
        for folder, name in zip(folders, names, strict=True):
            copy_tree(folder, build / "tasks" / name)
            report += _environment(build / "tasks" / name, name, host_toolchain)
        suite = {"protocol": "harbor", "tasks": names, **({"environment": "host"} if host_toolchain else {})}
        (build / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
        os.rename(build, out)
    except BaseException:
        discard(build)
        raise
    return report


def _environment(task: Path, name: str, host_toolchain: bool) -> list[str]:
    mapping = dockerfile_mapping(task, read_task(task))
    if mapping.block is None:
        return [f"{name}: no environment/: runs on the host toolchain"]
    if host_toolchain:
        return [f"{name}: environment/ not built (--host-toolchain): runs on the host toolchain"]
    (task / ENVIRONMENT_FILE).write_text(yaml.safe_dump({"environment": mapping.block}, sort_keys=False),
                                           encoding="utf-8")
    return [f"{name}: {note}" for note in mapping.notes]
