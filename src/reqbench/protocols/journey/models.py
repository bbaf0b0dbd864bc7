"""The journey instance format (`instance.yaml`) and the suite marker (`suite.yaml`).

An *instance* is one long-horizon task (SWE-Journey §3.2): a base repository, ordered subtasks grouped
into stages, and a hidden test suite. Each subtask carries what only the simulated user knows (the full
request, its acceptance criteria, a plain-language version, an optional earlier goal a pivoting user
states first), its dependencies, its reference patch and its Fail-to-Pass / Pass-to-Pass test node ids.

Everything here is hidden from the assistant: the assistant's workspace is a copy of ``repo`` only.

Layout of an instance directory::

    instance.yaml          this model
    repo/                  the base repository the assistant starts from
    patches/<ID>.patch     reference patches, applied in subtask order
    hidden/...             hidden tests, readable only by the test command (at ``{hidden}``)
"""

from __future__ import annotations

import warnings
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from reqbench.core.checks import upgrade_pytest_command
from reqbench.core.environment_field import environment_schema
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_json
from reqbench.core.inputfiles import read_yaml, validate
from reqbench.core.workspace.patch_paths import patch_paths
from reqbench.protocols.journey import sources
from reqbench.protocols.journey.placeholders import refuse_unfinished


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SubtaskSpec(_Strict):
    id: str = Field(description="Unique subtask id within the instance, e.g. 'T3'.")
    title: str = Field(description="Short name of the subtask (user-facing, e.g. 'overdue list').")
    request: str = Field(description="The full hidden request, technically precise (what an expert user "
                                     "would say when disclosing this subtask in one go).")
    plain: str = Field("", description="The same need in non-technical words (what a non-coder would say); "
                                       "defaults to the title.")
    acceptance_criteria: list[str] = Field(default_factory=list,
                                           description="Checkable statements the result must satisfy.")
    depends_on: list[str] = Field(default_factory=list, description="Ids of subtasks this one builds on.")
    pivot_from: str = Field("", description="An earlier, abandoned version of the goal that a user with "
                                            "pivoting goal stability states first and later replaces.")
    reference_patch: str = Field(description="Path of the reference patch, relative to the instance dir.")
    files: list[str] = Field(default_factory=list, description="Repository files the subtask is about "
                             "(used by offline localisation heuristics); derived from the patch when empty.")
    f2p: list[str] = Field(description="Fail-to-Pass test node ids: fail before this subtask's reference "
                                       "patch, pass after it.")
    p2p: list[str] = Field(default_factory=list, description="Pass-to-Pass test node ids: pass before and "
                                                             "after this subtask's reference patch.")
    p2p_include: list[str] = Field(default_factory=list, description="Ids of earlier subtasks whose F2P "
                                   "nodes are also Pass-to-Pass nodes of this subtask.")


class StageSpec(_Strict):
    id: str = Field(description="Stage id, e.g. 'S1'. Stages are progressively harder plan stages (§3.2).")
    title: str = Field("", description="What this stage is about.")
    subtasks: list[SubtaskSpec] = Field(description="Ordered subtasks of this stage.")


class TestbedSpec(_Strict):
    """How an instance's hidden tests run (its test command, hidden tests, import roots); where they run is
    the instance's `environment` block (DESIGN §14)."""

    test_command: str = Field(description="Shell command running the hidden tests, from the snapshot "
                              "root; placeholders: {pytest} (the hardened test runner: harness interpreter, "
                              "guard plugin reporting every node, no workspace configuration, rootdir = the "
                              "hidden directory, the workspace importable), {python}, {hidden} (the "
                              "read-only hidden directory), {workspace}. '{python} -m pytest' is upgraded to "
                              "{pytest}. Recommended: '{pytest} -q --continue-on-collection-errors "
                              "{hidden}/TESTS'.")
    hidden_tests: str = Field("hidden", description="Directory (relative to the instance dir) with the "
                              "hidden tests; readable by the test command at {hidden}, never copied into a "
                              "workspace.")
    hidden_include: list[str] = Field(default_factory=list, description="With a fetched hidden_tests "
                                      "source (pypi:...): the top-level entries of that tree the hidden "
                                      "directory keeps, e.g. [tests] (see `journey.sources`).")
    pythonpath: list[str] = Field(default_factory=lambda: ["."], description="Import roots of the tree "
                                  "under test, relative to its root, put on sys.path after pytest starts: "
                                  "['.'] for a flat layout, ['src'] when the package lives in src/ (the "
                                  "tree is imported the way the project imports it; nothing is installed).")
    timeout_seconds: float = Field(120.0, gt=0, allow_inf_nan=False,
                                   description="Wall-clock limit for one hidden test run.")
    env: dict[str, str] = Field(default_factory=dict, description="Extra environment variables for the "
                                "test command (the environment is otherwise scrubbed).")

    @field_validator("test_command")
    @classmethod
    def _guarded_runner(cls, value: str) -> str:
        return upgrade_pytest_command(value)

    @field_validator("pythonpath")
    @classmethod
    def _inside_tree(cls, value: list[str]) -> list[str]:
        for entry in value:
            if not entry or entry.startswith("/") or ".." in Path(entry).parts:
                raise ValueError(f"pythonpath entry {entry!r} must be a relative path inside the tree")
        return value


class InstanceSpec(_Strict):
    protocol: Literal["journey"] = Field("journey", description="Marker: this is a journey instance.")
    id: str = Field(description="Instance id.")
    title: str = Field(description="One-line description of the project.")
    overview: str = Field("", description="What the user is building overall, in the user's own voice; "
                                          "the first message and the single-shot prompt open with it.")
    repo: str = Field("repo", description="Base repository directory, relative to the instance dir.")
    testbed: TestbedSpec = Field(description="How hidden tests are run (called 'environment' before "
                                 "environments existed; such files still load, with a notice).")
    environment: dict[str, Any] | None = Field(
        default=None, json_schema_extra=environment_schema,
        description="Where the instance's code runs: a task environment block "
                    "(`reqbench schema environment`), built once and used by every agent turn "
                    "and every hidden-test run; none: the host's system and reqbench's Python.")
    common_p2p: list[str] = Field(default_factory=list, description="Test nodes that are Pass-to-Pass for "
                                  "every subtask (behaviour the base repository already has).")
    stages: list[StageSpec] = Field(description="Ordered stages of ordered subtasks.")

    @model_validator(mode="after")
    def _ids_and_references(self) -> InstanceSpec:
        seen: list[str] = []
        for stage in self.stages:
            if not stage.subtasks:
                raise ValueError(f"stage {stage.id!r} has no subtasks")
            for sub in stage.subtasks:
                if sub.id in seen:
                    raise ValueError(f"duplicate subtask id {sub.id!r}")
                for dep in [*sub.depends_on, *sub.p2p_include]:
                    if dep not in seen:
                        raise ValueError(f"subtask {sub.id!r} refers to {dep!r}, which is not an earlier "
                                         "subtask")
                if not sub.f2p:
                    raise ValueError(f"subtask {sub.id!r} has no F2P nodes (empty buckets fail closed)")
                seen.append(sub.id)
        if len({s.id for s in self.stages}) != len(self.stages):
            raise ValueError("duplicate stage id")
        return self


DEFAULT_CONDITIONS = ("non-coder", "product-manager", "new-developer", "software-architect", "single-shot")
"""The conditions a suite runs unless it or ``--condition`` says otherwise: the four personas of A.3 and
single-shot, the paper's comparison condition (B.2: "the entire synthesized instance in one mega-prompt",
reported beside every persona for the same models)."""


class SuiteSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    protocol: Literal["journey"] = Field(description="Marker: this directory is a journey suite.")
    instances: list[str] = Field(description="Instance directories, relative to the suite directory.")
    conditions: list[str] = Field(default_factory=lambda: list(DEFAULT_CONDITIONS),
                                  description="Default conditions: persona names, persona YAML paths, or "
                                              "'single-shot' (default: the four personas and single-shot).")
    simulator: Literal["deterministic", "llm"] = Field("deterministic", description="User simulator.")
    simulator_model: str = Field("", description="Model name for the llm simulator.")
    max_turns: int = Field(40, ge=1, description="Shared turn limit per session (user turns).")
    max_steps_per_turn: int = Field(250, ge=1, description="Autonomous assistant steps between two user "
                                                           "turns (B.1).")


# ---------------------------------------------------------------------------------------------------------


class Instance:
    """A loaded instance: the spec plus its directory, with derived whole-task node sets."""

    def __init__(self, spec: InstanceSpec, root: Path) -> None:
        self.spec = spec
        self.root = root

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def repo_dir(self) -> Path:
        return sources.tree(self.root, self.spec.repo)

    @property
    def hidden_dir(self) -> Path:
        env = self.spec.testbed
        return sources.hidden_tree(self.root, env.hidden_tests, env.hidden_include)

    @cached_property
    def subtasks(self) -> list[SubtaskSpec]:
        return [sub for stage in self.spec.stages for sub in stage.subtasks]

    def subtask(self, subtask_id: str) -> SubtaskSpec:
        for sub in self.subtasks:
            if sub.id == subtask_id:
                return sub
        raise KeyError(subtask_id)

    @cached_property
    def stage_of(self) -> dict[str, int]:
        """Subtask id -> 0-based stage index."""
        return {sub.id: i for i, stage in enumerate(self.spec.stages) for sub in stage.subtasks}

    def p2p_of(self, sub: SubtaskSpec) -> list[str]:
        """A subtask's full P2P list: common nodes, its own, and the F2P nodes of `p2p_include`."""
        nodes = [*self.spec.common_p2p, *sub.p2p]
        for other in sub.p2p_include:
            nodes.extend(self.subtask(other).f2p)
        return list(dict.fromkeys(nodes))

    @cached_property
    def whole_f2p(self) -> list[str]:
        """Whole-task F2P (A.4): every subtask's F2P node. A node some subtask declares P2P but an earlier
        subtask declares F2P fails at the base, so for the whole task it is F2P."""
        return list(dict.fromkeys(n for sub in self.subtasks for n in sub.f2p))

    @cached_property
    def whole_p2p(self) -> list[str]:
        """Whole-task P2P (A.4): declared P2P nodes that are nobody's F2P (they pass at the base)."""
        f2p = set(self.whole_f2p)
        return list(dict.fromkeys(n for sub in self.subtasks for n in self.p2p_of(sub) if n not in f2p))

    def stage_f2p(self, index: int) -> list[str]:
        return list(dict.fromkeys(n for sub in self.spec.stages[index].subtasks for n in sub.f2p))

    def patch_text(self, sub: SubtaskSpec) -> str:
        try:
            return sources.patch(self.root, sub.reference_patch)
        except InputError as exc:
            raise InputError(exc.rule, file=exc.file, item=f"{sub.id}: {sub.reference_patch}") from None

    def files_of(self, sub: SubtaskSpec) -> list[str]:
        """Files the subtask is about: declared, else the files its reference patch touches."""
        if sub.files:
            return list(sub.files)
        return patch_paths(self.patch_text(sub))

    @cached_property
    def test_env_hash(self) -> str:
        """Fingerprint of what decides a tree's test results: the environment spec and the hidden files."""
        from reqbench.protocols.journey.env import tree_hash

        return sha256_json({"env": self.spec.testbed.model_dump(mode="json"),
                            "hidden": tree_hash(self.hidden_dir)})

    @cached_property
    def content_hash(self) -> str:
        """Fingerprint of the spec and every patch (what calibration and caches key on)."""
        patches = {sub.id: self.patch_text(sub) for sub in self.subtasks}
        return sha256_json({"spec": historic_dump(self.spec), "patches": patches})


def load_instance(path: Path, *, placeholders: bool = False) -> Instance:
    """Load an instance from its directory (or its `instance.yaml`); raise `InputError` on bad input, and on
    a scaffold's unwritten ``TODO:`` texts (`placeholders`) unless `placeholders` allows them (the scaffold's
    own check of what it wrote)."""
    path = Path(path)
    file = path if path.is_file() else path / "instance.yaml"
    raw = read_yaml(file)
    if not placeholders:
        refuse_unfinished(raw, str(file))
    spec = validate(InstanceSpec, renamed_testbed(raw, file), str(file))
    inst = Instance(spec, file.parent)
    if spec.environment is not None:
        from reqbench.core.environments import load_environment

        load_environment(spec.environment, origin=str(file), base_dir=inst.root)
    if not sources.is_source(spec.repo) and not inst.repo_dir.is_dir():
        raise InputError("repository directory missing", file=str(file), item=spec.repo)
    if not sources.is_source(spec.testbed.hidden_tests) and not inst.hidden_dir.is_dir():
        raise InputError("hidden tests directory missing", file=str(file),
                         item=spec.testbed.hidden_tests)
    for sub in inst.subtasks:
        if not sources.is_source(sub.reference_patch) and not (inst.root / sub.reference_patch).is_file():
            raise InputError("reference patch missing", file=str(file),
                             item=f"{sub.id}: {sub.reference_patch}")
    return inst


def load_suite(path: Path) -> tuple[SuiteSpec, list[Instance]]:
    """A suite directory (`suite.yaml` with protocol: journey) or a single instance directory."""
    path = Path(path)
    if (path / "suite.yaml").is_file():
        file = path / "suite.yaml"
        suite = validate(SuiteSpec, read_yaml(file), str(file))
        return suite, [load_instance(path / rel) for rel in suite.instances]
    return SuiteSpec.model_validate({"protocol": "journey", "instances": ["."]}), [load_instance(path)]


TESTBED_KEYS = frozenset(TestbedSpec.model_fields)


def renamed_testbed(data: Any, file: Path) -> Any:
    """An instance file written before task environments: its ``environment:`` block holding the test command
    is read as ``testbed:`` (one notice, a warning), so ``environment`` means one thing in every file."""
    if not isinstance(data, dict) or "testbed" in data or not isinstance(data.get("environment"), dict):
        return data
    if "test_command" not in data["environment"] or not set(data["environment"]) <= TESTBED_KEYS:
        return data
    warnings.warn(f"{file}: its 'environment:' block (test command, hidden tests) is now called 'testbed:'; "
                  "read as such", UserWarning, stacklevel=3)
    return {**{k: v for k, v in data.items() if k != "environment"}, "testbed": data["environment"]}


def historic_dump(spec: InstanceSpec) -> dict[str, Any]:
    """`spec` as JSON under the names it had before task environments (``testbed`` as ``environment``), so
    the fingerprints recorded then stay valid; a task environment block is added only when there is one."""
    data = spec.model_dump(mode="json")
    block = data.pop("environment")
    data = {("environment" if k == "testbed" else k): v for k, v in data.items()}
    return data if block is None else {**data, "task_environment": block}
