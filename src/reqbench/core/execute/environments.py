"""Which task environment each row of a run runs in (DESIGN §14), built once before any row starts.

A row's environment is its task's (an ``environment:`` block in the task's file, offered by the suite's
optional ``environments() -> {task id: DeclaredEnvironment}`` hook; the key ``""`` stands for every task of
the suite, e.g. a takeover suite's block), else the run's
(``reqbench run --environment FILE|SPEC``, `RunOptions.environment`), else none (the host's system
directories). `prepare` validates and builds every one of them before the first row (`ensure_built`:
built once, or found in the cache by its key), so a build failure is one clear error and no row ever
builds; `RunEnvironments` maps rows to them and travels with the batch's `RunContext` (a remote worker
finds each by key once per process, or builds it there: `localize`).

Inside an attempt, `RowEnvironment` holds the row's environment twice: pristine (read-only, bound for every
check of the row through `sandbox.environment.row_environment`) and the agent's throw-away overlay
(`sandbox.envoverlay`), made on the row's first agent step and shared by every later step and session turn
of the row, removed with the attempt.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reqbench.core.errors import InputError, ReqbenchError
from reqbench.core.execute.types import Row, RunOptions
from reqbench.core.sandbox.environment import (
    EnvironmentMount,
    agent_environment,
    current_row_environment,
    row_environment,
)
from reqbench.core.sandbox.envoverlay import EnvironmentOverlay

if TYPE_CHECKING:  # the builders load only for a run that has environments
    from reqbench.core.environments import BuiltEnvironment
    from reqbench.core.execute.suite import Suite

OPTION = "--environment"
SUITE_WIDE = ""
"""The key of a suite's environments hook that stands for every task of the suite."""


def parse_option(value: str) -> tuple[dict[str, Any], str]:
    """``--environment FILE|SPEC``: a YAML/JSON file holding the block (or ``{environment: block}``; its paths
    relative to the file's folder) or the block as inline JSON (paths relative to the working directory).
    Returns the validated block as JSON and that folder; `InputError` naming file, item and rule otherwise."""
    from reqbench.core.environments import load_environment
    from reqbench.core.inputfiles import parse_yaml

    text = value.strip()
    if text.startswith("{"):
        try:
            data, origin, base = json.loads(text), OPTION, Path.cwd()
        except json.JSONDecodeError as exc:
            raise InputError(f"is neither a file nor valid JSON ({exc.msg} at column {exc.colno})",
                             item=OPTION) from None
    else:
        path = Path(value)
        if not path.is_file():
            raise InputError("no such file (give a YAML/JSON file or the block as inline JSON)",
                             file=value, item=OPTION)
        data, origin, base = parse_yaml(path.read_text(encoding="utf-8"), str(path)), str(path), path.parent
        if isinstance(data, dict) and set(data) == {"environment"}:
            data = data["environment"]
    spec = load_environment(data, origin=origin, base_dir=base.resolve())
    return spec.model_dump(mode="json", exclude_defaults=True), str(base.resolve())


@dataclass(frozen=True)
class RunEnvironments:
    """The built environments of a run: the run's own and each task's (picklable, for remote rows)."""

    default: BuiltEnvironment | None = None
    by_task: Mapping[str, BuiltEnvironment] = field(default_factory=dict)
    specs: Mapping[str, tuple[dict[str, Any], str]] = field(default_factory=dict)
    """key -> (block as JSON, folder its paths are relative to): what a remote worker builds from."""

    def of(self, row: Row) -> BuiltEnvironment | None:
        built = self.by_task.get(row.task_id, self.by_task.get(SUITE_WIDE, self.default))
        return localize(built, self.specs) if built is not None else None

    def keys(self) -> dict[str, Any]:
        """What the run records in its provenance (a resume must find the same)."""
        return {"run": self.default.key if self.default is not None else None,
                "tasks": {task: b.key for task, b in sorted(self.by_task.items())}}

    def __bool__(self) -> bool:
        return self.default is not None or bool(self.by_task)


def prepare(suite: Suite, options: RunOptions, progress: Any = None) -> RunEnvironments:
    """Build (or find) every environment the run's rows use, before any row starts (module docstring);
    `progress` is a `core.library_progress` reporter. `InputError` (file, item, rule) for a block that does not build
    or environments on a machine without bubblewrap (nothing else can show them)."""
    declared = suite.environments()
    if options.environment is None and not declared:
        return RunEnvironments()  # (the builders are not even imported)
    from reqbench.core.environments import EnvironmentSpec, environment_key, load_environment
    from reqbench.core.library_progress import steps, watching
    from reqbench.core.sandbox import available_isolation

    wanted: list[tuple[str | None, EnvironmentSpec, Path, str]] = []  # (task, spec, folder, origin); None: run's
    if options.environment is not None:
        base = Path(options.environment_dir or ".")
        wanted.append((None, load_environment(options.environment, origin=OPTION, base_dir=base), base, OPTION))
    wanted += [(task, d.spec, d.base_dir, d.origin) for task, d in sorted(declared.items())]
    if not wanted:
        return RunEnvironments()
    if available_isolation() != "bwrap":
        raise InputError("task environments need bubblewrap to be shown to agents and checks",
                         file=wanted[0][3], item="environment")
    keys = {environment_key(spec, base): (spec, base, origin) for _, spec, base, origin in wanted}
    built: dict[str, BuiltEnvironment] = {}
    with watching(progress):
        step = steps("environments", len(keys), "to build or find")
        for key, (spec, base, origin) in keys.items():
            started = time.perf_counter()
            built[key] = _build(spec, base, origin)
            step.advance(key[:12], time.perf_counter() - started)
    by_task = {task: built[environment_key(spec, base)] for task, spec, base, _ in wanted if task is not None}
    specs = {key: (spec.model_dump(mode="json", exclude_defaults=True), str(base))
             for key, (spec, base, _) in keys.items()}
    default = built[environment_key(wanted[0][1], wanted[0][2])] if wanted[0][0] is None else None
    return RunEnvironments(default, by_task, specs)


def _build(spec: Any, base: Path, origin: str) -> BuiltEnvironment:
    from reqbench.core.environments import ensure_built

    try:
        return ensure_built(spec, base, origin=origin)
    except InputError:
        raise
    except ReqbenchError as exc:
        raise InputError(f"the environment could not be built: {exc}", file=origin, item="environment") from None


_LOCAL: dict[str, BuiltEnvironment] = {}
_LOCAL_LOCK = threading.Lock()


def localize(built: BuiltEnvironment, specs: Mapping[str, tuple[dict[str, Any], str]]) -> BuiltEnvironment:
    """`built` where this machine has it: as given when its folder exists here, else found in this machine's
    cache by key, else built here from its block -- once per process and key."""
    from reqbench.core.environments import ensure_built, find_built, load_environment

    if built.path.is_dir():
        return built
    with _LOCAL_LOCK:
        found = _LOCAL.get(built.key) or find_built(built.key)
        if found is None and built.key in specs:
            data, base = specs[built.key]
            found = ensure_built(load_environment(data, origin=OPTION, base_dir=Path(base)), Path(base))
        if found is None:
            raise InputError(f"environment {built.key[:12]} is neither in this machine's cache nor buildable "
                             "here", item="environment")
        _LOCAL[built.key] = found
        return found


class RowEnvironment:
    """One attempt's environment: pristine for its checks, a throw-away overlay for its agent steps."""

    def __init__(self, built: BuiltEnvironment, work_dir: Path) -> None:
        self.built = built
        self.pristine = EnvironmentMount.pristine(built)
        self.overlay = EnvironmentOverlay(self.pristine, Path(work_dir) / ".environment")

    def agent_mount(self) -> EnvironmentMount:
        return self.overlay.mount()

    @contextmanager
    def for_agent(self) -> Iterator[None]:
        """Every launch of an agent step inside runs in the row's overlay."""
        with agent_environment(self.agent_mount()):
            yield

    def close(self) -> None:
        self.overlay.close()


@contextmanager
def attempt_environment(environments: RunEnvironments | None, row: Row,
                        work_dir: Path) -> Iterator[RowEnvironment | None]:
    """The row's `RowEnvironment` for one attempt (None: the host's), its checks bound to the pristine one."""
    built = environments.of(row) if environments else None
    if built is None:
        yield None
        return
    holder = RowEnvironment(built, work_dir)
    try:
        with row_environment(holder.pristine):
            yield holder
    finally:
        holder.close()


def declared_environments(entries: Iterable[tuple[str, Any, str, Path]]) -> dict[str, Any]:
    """A suite's ``environments()`` hook from ``(task id, environment block or None, file, folder)`` of its
    tasks: ``{task id: DeclaredEnvironment}`` of the tasks that declare one (each block validated:
    `InputError` naming its file)."""
    out: dict[str, Any] = {}
    for task, block, origin, base in entries:
        if block is not None:
            from reqbench.core.environments import load_environment
            from reqbench.core.environments.suites import DeclaredEnvironment

            spec = load_environment(block, origin=origin, base_dir=Path(base))
            out[task] = DeclaredEnvironment(spec, origin, Path(base))
    return out


@contextmanager
def task_checks(block: dict[str, Any] | None, origin: str, base_dir: Path) -> Iterator[None]:
    """Checks a suite runs outside a row (validation, calibration of its reference) in the environment its
    task declares (`block`, from `origin`), unless a row's is bound already (then that one)."""
    if block is None or current_row_environment() is not None:
        yield
        return
    with checks_in(declared_environments([("task", block, origin, base_dir)])["task"]):
        yield


@contextmanager
def checks_in(declared: Any) -> Iterator[None]:
    """Checks run outside a row (a suite's validation or calibration of its reference) in the pristine
    environment a task declares (`DeclaredEnvironment`; None: the host's), built first if needed."""
    if declared is None:
        yield
        return
    from reqbench.core.environments import ensure_built

    built = ensure_built(declared.spec, declared.base_dir)
    with row_environment(EnvironmentMount.pristine(built)):
        yield
