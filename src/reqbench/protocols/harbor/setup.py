"""A task folder of a harbor suite read once (`TaskSetup`): the Harbor task, its working directory, the
variables and environment block its Dockerfile maps to (`dockerfile`), and the suite's task list.

A task's environment is its ``environment.yaml`` (what ``reqbench import harbor`` wrote, or an edited
block) when the folder has one, else what its Dockerfile maps to; a suite imported with
``--host-toolchain`` (``environment: host`` in ``suite.yaml``) runs every task on the host's tools."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml
from reqbench.protocols.harbor.dockerfile import EnvironmentMapping, environment_block
from reqbench.protocols.harbor.taskfile import HarborTask, read_task

SYSTEM_PATHS = {"", "bin", "boot", "dev", "etc", "lib", "lib64", "proc", "run", "sbin", "sys", "tmp", "usr", "var",
                "opt", "sandbox", "logs", "tests", "solution"}
"""First folders a working directory may not lie in (it is bound over them in the verifier's sandbox)."""
ENVIRONMENT_FILE = "environment.yaml"
"""A task's environment block, written by the importer beside ``task.toml``."""


@dataclass
class TaskSetup:
    task: HarborTask
    workdir: str | None
    env: dict[str, str]
    """The Dockerfile's ``ENV``: set for the agent's steps, ``solve.sh`` and the verifier, as the image sets it."""
    environment: dict[str, Any] | None = None
    """The task's environment block (None: the host toolchain); paths relative to the task folder."""
    seeds: list[tuple[Path, str]] | None = None
    """Files of the build context and where below the working directory they start (`seed_workspace`)."""
    environment_origin: str = ""
    """The file the block comes from (``environment.yaml`` or the Dockerfile), for messages."""


def suite_tasks(path: Path) -> list[Path]:
    data = read_yaml(path / "suite.yaml")
    names = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise InputError("'tasks' must list task folders", file=str(path / "suite.yaml"), item="tasks")
    return [path / "tasks" / n for n in names]


def dockerfile_mapping(folder: Path, task: HarborTask) -> EnvironmentMapping:
    """What the task's ``environment/`` (its Dockerfile or ``docker_image``) and working directory map to."""
    dockerfile = folder / "environment" / "Dockerfile"
    return environment_block(dockerfile.read_text(encoding="utf-8") if dockerfile.is_file() else None,
                             task.docker_image, workdir=task.workdir)


def task_setup(folder: Path, host: bool = False) -> TaskSetup:
    task = read_task(folder)
    dockerfile = folder / "environment" / "Dockerfile"
    mapping = dockerfile_mapping(folder, task)
    workdir = mapping.workdir
    if workdir is not None and (not workdir.startswith("/") or workdir.strip("/").split("/")[0] in SYSTEM_PATHS
                                or ".." in workdir.split("/")):
        raise InputError("the working directory must be an absolute path outside the system folders",
                         file=str(folder / "task.toml"), item=f"workdir {workdir!r}")
    seeds = []
    for src, dest in mapping.seeds:
        inside = dest.rstrip("/") + "/"
        if workdir is None or not (inside == workdir.rstrip("/") + "/" or inside.startswith(workdir.rstrip("/") + "/")):
            raise InputError("copies files outside the working directory; only the working directory is a "
                             "workspace here", file=str(dockerfile), item=f"COPY {src} {dest}")
        source = folder / "environment" / src
        if not source.exists() or source.is_symlink():
            raise InputError("names a build-context file that is not there", file=str(dockerfile), item=f"COPY {src}")
        seeds.append((source, inside[len(workdir.rstrip("/")) + 1:]))
    block, origin = (None, "") if host else _environment(folder, mapping.block, dockerfile)
    return TaskSetup(task, workdir, mapping.env, block, seeds, environment_origin=origin)


def _environment(folder: Path, mapped: dict[str, Any] | None, dockerfile: Path) -> tuple[dict[str, Any] | None, str]:
    """The task's block and the file it comes from: ``environment.yaml`` (validated here, so a bad one is
    one error naming it), else the Dockerfile's mapping."""
    from reqbench.core.environments import load_environment
    from reqbench.core.environments.suites import read_environment_file

    written = folder / ENVIRONMENT_FILE
    if written.is_file():
        return read_environment_file(written).spec.model_dump(mode="json", exclude_defaults=True), str(written)
    if mapped is not None:
        load_environment(mapped, origin=str(dockerfile), base_dir=folder)
    return mapped, str(dockerfile)


def seed_workspace(setup: TaskSetup, workspace: Path) -> None:
    """Copy the task's ``COPY``'d build-context files into the (empty) workspace, as the image would hold
    them in the working directory (a folder's contents, or a file into a folder or under its own name)."""
    from reqbench.core.workspace import copy_tree

    for source, below in setup.seeds or []:
        target = workspace / below
        if source.is_dir():
            if target.exists():
                for child in source.iterdir():
                    _copy(child, target / child.name, copy_tree)
            else:
                copy_tree(source, target)
        else:
            _copy(source, target / source.name if below.endswith("/") or not below else target, copy_tree)


def _copy(source: Path, target: Path, copy_tree: Any) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        copy_tree(source, target)
    else:
        target.write_bytes(source.read_bytes())
