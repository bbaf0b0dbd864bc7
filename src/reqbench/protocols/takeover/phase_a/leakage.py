"""The leakage scanner for public Phase-A files (paper B.2 input isolation; FORMAT.md (f.6)).

Public files (task, history, instructions, response schema) must not carry anything from the research
side: internal requirement/state/event ids, gold or construction fields, selection metadata or delivery
assets. `scan_public_files` returns every finding; `assert_no_leakage` refuses with the first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from reqbench.core.errors import InputError

FORBIDDEN_TOKENS = (
    # construction / research-side records
    "construction_gold",
    "source_artifacts",
    "selection_basis",
    # gold fields
    "task_gold_id",
    "pre_task_gold_state",
    "post_task_gold_state",
    "final_gold_by_condition",
    "blocking_ambiguity_candidates",
    "required_evidence_groups",
    "supporting_event_ids",
    "task_event_ids",
    "affected_requirement_ids",
    # delivery assets
    "acceptance_criteria",
    "validator_id",
    "reference_delivery",
    "archive_path",
    "pre_repo.zip",
)
_REQUIREMENT_ID = re.compile(r"\bREQ_[A-Z0-9_]+\b")
_STATE_OR_EVENT_ID = re.compile(r"\b(?:STATE|EVENT)_[A-Z0-9_]+\b")
_WORD = re.compile(r"[A-Za-z0-9_]+")  # an id counts only as a whole word


@dataclass(frozen=True)
class Leak:
    file: str
    what: str

    def __str__(self) -> str:
        return f"public file {self.file} leaks {self.what}"


def scan_public_files(files: Mapping[str, str], internal_ids: Iterable[str] = ()) -> list[Leak]:
    """All leaks in the public files: forbidden tokens, REQ_*/STATE_*/EVENT_* ids, and the project's own
    requirement, state and event ids (whatever their spelling)."""
    ids = {i for i in internal_ids if i}
    leaks: list[Leak] = []
    for name, text in files.items():
        leaks += [Leak(name, f"the research-side token {tok!r}") for tok in FORBIDDEN_TOKENS if tok in text]
        if m := _REQUIREMENT_ID.search(text):
            leaks.append(Leak(name, f"an internal requirement id ({m.group(0)})"))
        if m := _STATE_OR_EVENT_ID.search(text):
            leaks.append(Leak(name, f"an internal state/event id ({m.group(0)})"))
        own = sorted(ids.intersection(_WORD.findall(text))) if ids else []
        if own:
            leaks.append(Leak(name, f"an internal id of this project ({own[0]})"))
    return leaks


def assert_no_leakage(
    files: Mapping[str, str], internal_ids: Iterable[str] = (), *, package: str = ""
) -> None:
    """Refuse (InputError) a public package with any leak; nothing is written by the caller then."""
    leaks = scan_public_files(files, internal_ids)
    if leaks:
        more = f" (and {len(leaks) - 1} more)" if len(leaks) > 1 else ""
        raise InputError(f"{leaks[0]}{more}; refusing to write the public package", item=package or None)
