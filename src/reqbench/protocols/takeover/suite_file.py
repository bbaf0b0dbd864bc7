"""The takeover suite file (`suite.yaml`): where the annotated project, the code and the checks live.

A takeover suite is a folder::

    suite.yaml                 this file (protocol: takeover)
    project/                   normalized_project.json, annotation.json, selected_target_times.json
    repo/                      the code base at the start of the timeline (or a source spec such as
                               pypi:NAME==VERSION#sha256=..., fetched at run time; see core.workspace.sources)
    timeline/*.patch           later implementation work, each tagged with the message it implements
    targets/<T>/hidden/        hidden tests of a delivery target (never in the agent's workspace)
    targets/<T>/reference.patch, negative patches (plausible partial solutions that must fail)

The initial repository of a delivery target at message m is `repo/` plus, in message order, every
timeline patch and every other delivery target's reference patch whose message precedes m
(`initial.initial_patches`) -- unless the target names a complete snapshot of it (`initial_repository`,
e.g. a released ``pre_repo.zip``), which is then its initial repository as it is. A suite whose every
delivery target has a snapshot needs no shared repository (``repository: null``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reqbench.core.checks import upgrade_pytest_command
from reqbench.core.environment_field import environment_schema
from reqbench.core.errors import InputError
from reqbench.core.inputfiles import read_yaml, validate
from reqbench.core.workspace import RepoSource
from reqbench.core.workspace.sources import is_source_spec, source_tree
from reqbench.protocols.base import marker_protocol


class CheckSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(description="Shell command; {python} is the harness interpreter, {pytest} the "
                         "hardened test runner (its per-test results are the evidence; '{python} -m "
                         "pytest' is upgraded to it), {hidden} the target's hidden directory, "
                         "{workspace} the snapshot under test.")
    timeout_seconds: float = Field(300.0, gt=0, allow_inf_nan=False,
                                   description="Wall-clock limit; a timeout while the submission's tests run is a "
                                   "FAIL, any other timeout HARNESS_ERROR.")
    protected: list[str] = Field(default_factory=list, description="Workspace-relative globs restored "
                                 "from the target's initial repository before the check runs (conftest.py, "
                                 "pytest/tox/setup.cfg ini files, sitecustomize and .pth files always are).")

    @field_validator("command")
    @classmethod
    def _guarded_runner(cls, value: str) -> str:
        return upgrade_pytest_command(value)


class GateChecks(BaseModel):
    model_config = ConfigDict(extra="forbid")
    build: CheckSpec = Field(description="Does the project build? Run first; FAIL skips the other gates.")
    target: CheckSpec = Field(description="Does the project implement the current request?")
    regression: CheckSpec = Field(description="Do requirements the request did not change still hold?")


class TimelineEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_id: int | str = Field(description="The message whose work this patch implements.")
    patch: str = Field(description="Patch file, relative to the suite folder.")


class DeliveryTarget(BaseModel):
    model_config = ConfigDict(extra="forbid")
    target_id: str = Field(description="A target id from project/selected_target_times.json.")
    reference_patch: str = Field(description="Reference solution; must pass all three gates.")
    negative_patches: list[str] = Field(default_factory=list, description="Plausible partial solutions; "
                                        "each must apply and fail the target gate.")
    hidden: str = Field(description="Folder of hidden check files, relative to the suite folder.")
    checks: GateChecks | None = Field(None, description="Per-target checks (default: the suite's).")
    initial_repository: str | None = Field(
        None, description="A complete snapshot of the code base just before the request (a .zip checked "
        "and extracted by takeover.rq4_delivery.archives, or a folder), relative to the suite folder; when set "
        "it is the target's initial repository and the repository + patches rule is not used.")
    environment: dict[str, Any] | None = Field(
        None, json_schema_extra=environment_schema,
        description="This target's task environment block (`reqbench schema environment`; paths "
                    "relative to the suite folder), over the suite's; none: the suite's.")
    initial_repository_sha256: str | None = Field(
        None, pattern=r"^[0-9a-f]{64}$", description="sha256 of the snapshot zip's bytes, checked before "
        "every extraction (`reqbench takeover import` records the release's archive_sha256 here).")


class TakeoverSuite(BaseModel):
    model_config = ConfigDict(extra="forbid")
    protocol: str = Field(description="Always 'takeover'.")
    name: str = Field(description="Suite name, used in run directory names.")
    project: str = Field("project", description="Folder with the annotated project files.")
    repository: str | None = Field("repo", description="The code base at the start of the timeline: a folder "
                                   "of the suite, or a repository source spec (pypi:NAME==VERSION#sha256=..., "
                                   "pypi-diff:, git:, archive:) fetched at run time; null when every delivery "
                                   "target names its own initial_repository.")
    timeline: list[TimelineEntry] = Field(default_factory=list, description="Implementation patches.")
    checks: GateChecks | None = Field(None, description="Default gate checks of every delivery target.")
    delivery: list[DeliveryTarget] = Field(default_factory=list, description="Targets with code delivery.")
    environment: dict[str, Any] | None = Field(
        None, json_schema_extra=environment_schema,
        description="Where every row's code runs: a task environment block (`reqbench schema "
                    "environment`; paths relative to the suite folder), built once per run and used by "
                    "every agent step and every gate; a delivery target's own block wins.")

    def checks_for(self, target: DeliveryTarget) -> GateChecks:
        checks = target.checks or self.checks
        if checks is None:
            raise InputError("has no checks (set suite-level 'checks' or per-target 'checks')",
                             file="suite.yaml", item=f"delivery target {target.target_id}")
        return checks

    def delivery_target(self, target_id: str) -> DeliveryTarget | None:
        return next((d for d in self.delivery if d.target_id == target_id), None)


SUITE_FILE = "suite.yaml"


def is_takeover_suite(path: Path) -> bool:
    return marker_protocol(Path(path) / SUITE_FILE) == "takeover"


def repository_tree(suite_dir: Path, suite: TakeoverSuite) -> Path:
    """The code base at the start of the timeline: the suite's folder, or the pristine tree of its source
    spec (fetched and hash-checked into the cache on first use; read-only)."""
    if suite.repository is None:
        raise InputError("has no shared repository (repository: null)", file="suite.yaml")
    return source_tree(Path(suite_dir), suite.repository)


def load_suite(path: Path) -> TakeoverSuite:
    """Load and structurally validate `suite.yaml`; file references must exist and a repository source
    spec must parse (it is fetched only when a repository is built)."""
    f = Path(path) / SUITE_FILE
    if not f.is_file():
        raise InputError("no suite.yaml in the suite folder", file=str(path))
    suite = validate(TakeoverSuite, read_yaml(f), str(f))
    from reqbench.core.environments import load_environment

    for item, block in [("suite", suite.environment), *((f"delivery target {d.target_id}", d.environment)
                                                        for d in suite.delivery)]:
        if block is not None:
            load_environment(block, origin=f"{f} ({item})", base_dir=Path(path))
    if suite.repository is None:
        for d in suite.delivery:
            if d.initial_repository is None:
                raise InputError("needs an initial_repository: the suite has no shared repository "
                                 "(repository: null)", file=str(f), item=f"delivery target {d.target_id}")
    elif is_source_spec(suite.repository):
        try:
            RepoSource.parse(suite.repository, base_dir=Path(path))
        except InputError as exc:
            raise InputError(exc.rule, file=str(f), item=f"repository {suite.repository!r}") from None
    for rel, item in _referenced_paths(suite):
        if not (Path(path) / rel).exists():
            raise InputError(f"references a missing path {rel!r}", file=str(f), item=item)
    return suite


def _referenced_paths(suite: TakeoverSuite) -> list[tuple[str, str]]:
    refs = [(suite.project, "project")]
    if suite.repository is not None and not is_source_spec(suite.repository):
        refs.append((suite.repository, "repository"))
    refs += [(t.patch, f"timeline message {t.message_id}") for t in suite.timeline]
    for d in suite.delivery:
        item = f"delivery target {d.target_id}"
        refs += [(d.reference_patch, item), (d.hidden, item)]
        refs += [(d.initial_repository, item)] if d.initial_repository is not None else []
        refs += [(n, item) for n in d.negative_patches]
    return refs
