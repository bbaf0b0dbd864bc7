"""Small hand-made takeover projects for the ledger tests (raw dicts in the released file formats)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from reqbench.protocols.takeover.annotation.loading import load_project_data
from reqbench.protocols.takeover.annotation.project import Project

REPO_ROOT = Path(__file__).resolve().parents[3]
# CI puts shared/ beside the clone (repo_root/../shared); a git worktree one level deeper finds it above.
REFERENCE = next(
    (
        p
        for p in (
            REPO_ROOT / ".." / "shared" / "reference" / "reqmembench",
            REPO_ROOT / ".." / ".." / "shared" / "reference" / "reqmembench",
        )
        if p.is_dir()
    ),
    REPO_ROOT / ".." / "shared" / "reference" / "reqmembench",
)
FIXTURE = REFERENCE / "44132019"
RELEASE = "44132019-stage2-final-20260925-rq123-main-v1"


def messages(speakers: str) -> list[dict[str, Any]]:
    """One message per letter: c = client, f = freelancer; ids 1.., text 'message <id>'."""
    return [
        {
            "message_id": i,
            "created_ts": None,
            "speaker": "client" if s == "c" else "freelancer",
            "text": f"message {i}",
            "milestone": None,
            "original_index": i - 1,
            "sender_id": None,
        }
        for i, s in enumerate(speakers, start=1)
    ]


def event(
    rid: str, n: int, mid: int, event_type: str, msgs: list[dict[str, Any]], **payload: Any
) -> dict[str, Any]:
    """An event in the released 10-key form; payload keys default to null."""
    src = msgs[[m["message_id"] for m in msgs].index(mid)]
    ev = {
        "event_id": f"{rid}_E{n:03d}",
        "source_message": {"message_id": mid, "speaker": src["speaker"], "text": src["text"]},
        "supporting_message_ids": payload.pop("supporting", []),
        "event_type": event_type,
        "value_updates": None,
        "value_removals": None,
        "scope_updates": None,
        "ambiguity": None,
        "execution": None,
        "resolves_ambiguity_event_ids": None,
    }
    ev.update(payload)
    return ev


def files(
    msgs: list[dict[str, Any]],
    requirements: list[dict[str, Any]],
    target_mids: list[int],
    families: list[str] = ("FAM",),
) -> tuple[dict, dict, dict]:
    """(normalized, annotation, selected targets) for pid 'P1'."""
    normalized = {"project_id": "P1", "project_title": "Test", "messages": copy.deepcopy(msgs)}
    annotation = {
        "benchmark": "ReqMemBench",
        "annotation_version": "v0.6",
        "project": {"project_id": "P1", "project_title": "Test", "sessions": []},
        "requirement_families": [{"family_id": f, "title": f} for f in families],
        "requirements": copy.deepcopy(requirements),
    }
    targets = {
        "schema_version": "selected-target-times-v1",
        "project_id": "P1",
        "selected_targets": [
            {"target_id": f"P1_T{i:03d}", "message_id": mid} for i, mid in enumerate(target_mids, start=1)
        ],
    }
    return normalized, annotation, targets


def requirement(rid: str, events: list[dict[str, Any]], family: str | None = "FAM") -> dict[str, Any]:
    return {
        "requirement_id": rid,
        "title": rid.replace("_", " ").title(),
        "family_id": family,
        "events": events,
    }


def write(folder: Path, normalized: dict, annotation: dict, targets: dict) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, value in (
        ("normalized_project.json", normalized),
        ("annotation.json", annotation),
        ("selected_target_times.json", targets),
    ):
        (folder / name).write_text(json.dumps(value, indent=2), encoding="utf-8")
    return folder


def small() -> tuple[dict, dict, dict]:
    """A valid project: 6 messages, two atoms, one target at message 5.

    REQ_A: INTRODUCE@1 {x:1,y:2} persistence TASK_LOCAL; AMBIGUOUS@3; MODIFY@5 removes y, sets z, resolves.
    REQ_B: INTRODUCE@5 (new at the target).
    """
    m = messages("cfcfcf")
    a = [
        event(
            "REQ_A",
            1,
            1,
            "INTRODUCE",
            m,
            value_updates={"x": 1, "y": 2},
            scope_updates={"persistence": "TASK_LOCAL", "components": None, "contexts": None},
        ),
        event("REQ_A", 2, 3, "AMBIGUOUS", m, ambiguity={"dimension": "VALUE", "description": "x or y?"}),
        event(
            "REQ_A",
            3,
            5,
            "MODIFY",
            m,
            supporting=[4],
            value_updates={"z": True},
            value_removals=["y"],
            resolves_ambiguity_event_ids=["REQ_A_E002"],
        ),
    ]
    b = [event("REQ_B", 1, 5, "INTRODUCE", m, value_updates={"w": "new"})]
    return files(m, [requirement("REQ_A", a), requirement("REQ_B", b)], [5])


def load(normalized: dict, annotation: dict, targets: dict | None) -> Project:
    return load_project_data(normalized, annotation, targets, name="test")
