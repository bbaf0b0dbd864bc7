"""`reqbench takeover build`: everything derived from a project, written as one atomic unit.

Output layout (DIR):
``requirement_state_graph.json``, ``gold_states.json``, ``rq_instance_manifest.json``, ``RQ1/ RQ2/ RQ3/``
(``<target_id>_RQn.json`` + ``index.json``), when the project has code environments ``RQ4/`` and
``rq4_agent_judge_registry.json`` (`rq4`), and
``rq_agent_inputs/<input_release>/<project_id>/<target_id>/<C>/{public,private}/``.
The build happens in a temporary sibling directory that is renamed into place only when every file has
been written; on any error nothing (new) is left behind.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.filemodes import as_umask_allows
from reqbench.core.hashing import pretty_json, sha256_file, sha256_json, sha256_text
from reqbench.protocols.takeover.annotation.project import Project
from reqbench.protocols.takeover.annotation.replay import replay
from reqbench.protocols.takeover.construction.conditions import CONDITIONS, active_rqs
from reqbench.protocols.takeover.construction.gold import gold_states
from reqbench.protocols.takeover.construction.manifest import instance_manifest
from reqbench.protocols.takeover.construction.rq_common import REASONING_RQS, default_input_release, index_file
from reqbench.protocols.takeover.construction.rq_instances import build_rq_instances, target_contexts
from reqbench.protocols.takeover.construction.targets import build_targets
from reqbench.protocols.takeover.phase_a.packages import write_phase_a_package
from reqbench.protocols.takeover.phase_a.texts import PhaseATexts, load_phase_a_texts
from reqbench.protocols.takeover.rq4_delivery.environments import CodeEnvironment, read_environments
from reqbench.protocols.takeover.rq4_delivery.registry import (
    REGISTRY_FILE,
    build_rq4,
    environment_blockers,
    matching_environment,
    registry,
    registry_target,
    rq4_applicable,
)

MANIFEST_FILE = "rq_instance_manifest.json"
GRAPH_FILE = "requirement_state_graph.json"
GOLD_FILE = "gold_states.json"


@dataclass
class BuildResult:
    out_dir: Path
    input_release: str
    instance_counts: dict[str, int] = field(default_factory=dict)
    packages: list[dict[str, Any]] = field(default_factory=list)
    phase_a_texts: str = ""
    """Which Phase-A texts the packages hold (`PhaseATexts.statement`: the paraphrase named as a difference)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "out_dir": str(self.out_dir),
            "phase_a_texts": self.phase_a_texts,
            "input_release": self.input_release,
            "instance_counts": self.instance_counts,
            "packages": [{k: p[k] for k in ("target_id", "condition", "package_id")} for p in self.packages],
        }


def _put(path: Path, text: str) -> None:
    """Plain write inside the temporary tree: the atomic unit is the final rename of the whole tree."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def _environment_base(env_root: Path) -> Path:
    """The folder that environment paths in the registry are relative to (the project folder)."""
    for parent in env_root.parents:
        if parent.name in ("code_environment", "Code Environment"):
            return parent.parent
    return env_root.parent


def _write_tree(
    root: Path, project: Project, release: str | None, texts: PhaseATexts, env_root: Path | None = None
) -> BuildResult:
    graph = replay(project)
    targets = build_targets(project, graph)
    gold = gold_states(project, targets)
    release = release or default_input_release(project, gold, graph)
    graph_text, gold_text = pretty_json(graph.to_json()), pretty_json(gold)
    _put(root / GRAPH_FILE, graph_text)
    _put(root / GOLD_FILE, gold_text)
    sources: dict[str, Any] = {
        "gold_states": {"path": GOLD_FILE, "sha256": sha256_text(gold_text)},
        "requirement_state_graph": {"path": GRAPH_FILE, "sha256": sha256_text(graph_text)},
    }
    normalized = project.source_files.get("normalized_project")
    if normalized is not None:
        sources["normalized_project"] = {"path": normalized.name, "sha256": sha256_file(normalized)}
    contexts = target_contexts(project, graph, targets, release, sources)
    envs = read_environments(env_root)
    env_of: dict[str, CodeEnvironment] = {}
    for i, ctx in enumerate(contexts):
        env = matching_environment(ctx, envs)
        if env is not None and "RQ3" in ctx.applicable and rq4_applicable(ctx, env):
            env_of[ctx.target.target_id] = env
            contexts[i] = dataclasses.replace(ctx, applicable=[*ctx.applicable, "RQ4"])
    instances = build_rq_instances(contexts)
    files: dict[tuple[str, str], tuple[str, str, str]] = {}  # (target, RQ) -> (path, file sha, content sha)
    result = BuildResult(root, release)
    for rq in REASONING_RQS:
        for inst in instances[rq]:
            rel = f"{rq}/{inst['instance_id']}.json"
            text = pretty_json(inst)
            _put(root / rel, text)
            files[(inst["target_id"], rq)] = (rel, sha256_text(text), sha256_json(inst))
        _put(root / rq / "index.json", pretty_json(index_file(release, project, rq, instances[rq])))
        result.instance_counts[rq] = len(instances[rq])
    rq4_by_target = _write_rq4(root, contexts, instances, files, env_of, env_root, len(envs), release, project)
    if rq4_by_target:
        instances = {**instances, "RQ4": list(rq4_by_target.values())}
        result.instance_counts["RQ4"] = len(rq4_by_target)
    manifest = instance_manifest(project.project_id, release, contexts, instances)
    _put(root / MANIFEST_FILE, pretty_json(manifest))
    for ctx in contexts:
        tid = ctx.target.target_id
        mine = {rq: files[(tid, rq)] for rq in (*REASONING_RQS, "RQ4") if (tid, rq) in files}
        for condition in CONDITIONS:
            if not active_rqs(condition, ctx.applicable):
                continue
            pkg_dir = root / "rq_agent_inputs" / release / project.project_id / tid / condition
            manifest = write_phase_a_package(
                pkg_dir, ctx, condition, texts, mine, write=_put, rq4=rq4_by_target.get(tid)
            )
            result.packages.append(manifest)
    return result


def _write_rq4(
    root: Path,
    contexts: list[Any],
    instances: dict[str, list[dict[str, Any]]],
    files: dict[tuple[str, str], tuple[str, str, str]],
    env_of: dict[str, CodeEnvironment],
    env_root: Path | None,
    raw_count: int,
    release: str,
    project: Project,
) -> dict[str, dict[str, Any]]:
    """RQ4 instances, their index and the agent-judge registry; {target id: RQ4 instance}."""
    if not env_of or env_root is None:
        return {}
    from reqbench.protocols.takeover.phase_a.packages import internal_ids

    base = _environment_base(env_root)
    rq3 = {i["target_id"]: i for i in instances["RQ3"]}
    out: dict[str, dict[str, Any]] = {}
    records = []
    for ctx in sorted(contexts, key=lambda c: c.target.position):
        tid = ctx.target.target_id
        if tid not in env_of:
            continue
        env = env_of[tid]
        rq3_path, rq3_sha, _ = files[(tid, "RQ3")]
        record = registry_target(ctx, env, rq3[tid], (rq3_path, rq3_sha), base)
        inst = build_rq4(ctx, record, env, environment_blockers(ctx, env, internal_ids(ctx)))
        rel = f"RQ4/{inst['instance_id']}.json"
        text = pretty_json(inst)
        _put(root / rel, text)
        files[(tid, "RQ4")] = (rel, sha256_text(text), sha256_json(inst))
        out[tid] = inst
        records.append(record)
    _put(root / "RQ4" / "index.json", pretty_json(index_file(release, project, "RQ4", list(out.values()))))
    _put(root / REGISTRY_FILE, pretty_json(registry(raw_count, records)))
    return out


def _is_previous_build(path: Path) -> bool:
    return path.is_dir() and (not any(path.iterdir()) or (path / GRAPH_FILE).is_file())


def build_release(
    project: Project,
    out_dir: Path,
    *,
    input_release: str | None = None,
    instructions: Path | None = None,
    response_schema: Path | None = None,
    code_environments: Path | None = None,
) -> BuildResult:
    """Build everything into `out_dir` atomically (a previous build there is replaced as a whole).

    `code_environments` is a ``targets/`` folder of RQ4 code environments (`rq4_delivery.environments`)."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not _is_previous_build(out_dir):
        raise InputError(
            "output directory exists and is not an earlier build; refusing to replace it", file=str(out_dir)
        )
    texts = load_phase_a_texts(instructions, response_schema)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempdirs.make("staging", out_dir.parent, hidden=True)
    as_umask_allows(tmp, directory=True)
    try:
        result = _write_tree(tmp, project, input_release, texts, code_environments)
        old = None
        if out_dir.exists():
            old = out_dir.with_name(f".{out_dir.name}.old-{os.getpid()}")
            os.replace(out_dir, old)
        os.replace(tmp, out_dir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    result.out_dir = out_dir
    result.phase_a_texts = texts.statement()
    return result
