"""Phase-A agent-input packages: four public files per target x condition, plus a private manifest
(paper B.2 input isolation; FORMAT.md (f.6)).

The public side is exactly what an agent may see: the current request (``task.json``), the condition's
history (``history.jsonl``), the instructions and the response schema (`phase_a.texts`: reqbench's paraphrase
by default, the released texts when given). Everything else (gold, ids, selection metadata) stays in
``private/package_manifest.json``. Public files are built in memory, scanned for leaks, and only then written;
a leak refuses the package.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.errors import InputError
from reqbench.core.hashing import atomic_write_text, pretty_json, sha256_json, sha256_text
from reqbench.protocols.takeover.annotation.project import id_key
from reqbench.protocols.takeover.construction.conditions import active_rqs
from reqbench.protocols.takeover.construction.rq_common import TargetContext, difficulty
from reqbench.protocols.takeover.phase_a.leakage import assert_no_leakage
from reqbench.protocols.takeover.phase_a.texts import PhaseATexts

TASK_SCHEMA_VERSION = "rq-agent-task-v1"
MANIFEST_SCHEMA_VERSION = "rq-private-package-manifest-v2"
PUBLIC_FILES = ("task.json", "history.jsonl", "instructions.md", "response.schema.json")


def public_files(ctx: TargetContext, condition: str, texts: PhaseATexts) -> dict[str, str]:
    """The four public files (exact text) of one target under one condition."""
    task = ctx.gold_row["target_task"]
    wanted = {id_key(m) for m in ctx.histories[condition]}
    history = [m for m in ctx.project.messages[: ctx.target.position] if id_key(m["message_id"]) in wanted]
    lines = [
        {k: m.get(k) for k in ("message_id", "created_ts", "speaker", "text", "milestone")} for m in history
    ]
    return {
        "task.json": pretty_json(
            {
                "schema_version": TASK_SCHEMA_VERSION,
                "task": {
                    "message_id": task["source_message_id"],
                    "speaker": task["speaker"],
                    "text": task["text"],
                },
                "history_file": "history.jsonl",
                "response_schema_file": "response.schema.json",
            }
        ),
        "history.jsonl": "".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in lines
        ),
        "instructions.md": texts.instructions_file,
        "response.schema.json": texts.schema_file,
    }


def package_id(release: str, fingerprint: str, condition: str, public_hashes: dict[str, str]) -> str:
    """``pkg_`` + the first 20 hex digits of the canonical sha of the package identity (FORMAT.md (f.6))."""
    return (
        "pkg_"
        + sha256_json(
            {
                "input_release": release,
                "target_fingerprint": fingerprint,
                "condition": condition,
                "public_hashes": public_hashes,
            }
        )[:20]
    )


def internal_ids(ctx: TargetContext) -> list[str]:
    """The project's requirement, state and event ids (scanned for in public files)."""
    ids = [g.requirement_id for g in ctx.graph.graphs]
    ids += [n["state_id"] for g in ctx.graph.graphs for n in g.nodes]
    ids += [e["event_id"] for g in ctx.graph.graphs for e in g.edges]
    return [i for i in ids if "_" in i]  # bare words would match ordinary prose


def private_manifest(
    ctx: TargetContext,
    condition: str,
    hashes: dict[str, str],
    instance_files: dict[str, tuple[str, str, str]],
    rq4: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The research-side record of one package; `instance_files` maps RQ -> (path, file sha, content sha).

    `rq4` is the target's RQ4 instance when it has one (`rq4_delivery.registry.package_rq4_block` fills the ``rq4``
    block and, when the condition is eligible, ``execution_rq`` and ``repository``)."""
    from reqbench.protocols.takeover.rq4_delivery.registry import package_rq4_block

    block = package_rq4_block(rq4, condition)
    turns = ctx.target.position
    return {
        "schema_version": MANIFEST_SCHEMA_VERSION,
        "manifest_kind": "IMMUTABLE_INPUT_PACKAGE",
        "package_id": package_id(ctx.release, ctx.fingerprint, condition, hashes),
        "input_release": ctx.release,
        "project_id": ctx.project.project_id,
        "target_id": ctx.target.target_id,
        "target_fingerprint": ctx.fingerprint,
        "condition": condition,
        "turns": turns,
        "difficulty": difficulty(turns),
        "reasoning_active_rqs": active_rqs(condition, ctx.applicable),
        "execution_rq": "RQ4" if block["eligible"] else None,
        "source_instances": {
            rq: {"path": p, "file_sha256": f, "content_sha256": c} for rq, (p, f, c) in instance_files.items()
        },
        "public_files": hashes,
        "phase_gate_policy": {"repository_visible_in_phase_a": False, "phase_b_requires_agent_act": True},
        "repository": rq4["construction_gold"]["registry_target"]["code_environment"]
        if rq4 is not None and block["eligible"]
        else None,
        "rq4": block,
        "mode": "FORMAL",
        "score_status": "READY",
    }


def write_phase_a_package(
    package_dir: Path,
    ctx: TargetContext,
    condition: str,
    texts: PhaseATexts,
    instance_files: dict[str, tuple[str, str, str]],
    write: Callable[[Path, str], None] = atomic_write_text,
    rq4: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Scan, then write ``public/`` and ``private/package_manifest.json``; returns the manifest.

    Refuses (InputError, nothing written) when the condition serves no RQ or a public file leaks.
    `write` defaults to one atomic write per file; a caller building a whole tree atomically may pass a
    plain writer.
    """
    if not active_rqs(condition, ctx.applicable):
        raise InputError(f"condition {condition} serves no reasoning RQ", item=ctx.target.target_id)
    files = public_files(ctx, condition, texts)
    assert_no_leakage(files, internal_ids(ctx), package=f"{ctx.target.target_id}/{condition}")
    hashes = {name: sha256_text(files[name]) for name in PUBLIC_FILES}
    manifest = private_manifest(ctx, condition, hashes, instance_files, rq4)
    for name in PUBLIC_FILES:
        write(package_dir / "public" / name, files[name])
    write(package_dir / "private" / "package_manifest.json", pretty_json(manifest))
    return manifest
