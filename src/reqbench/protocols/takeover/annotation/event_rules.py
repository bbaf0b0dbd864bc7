"""Event rules of the Stage-1 annotation (paper A.1; FORMAT.md (a) payload rules), one function per rule.

Each rule looks at the typed project and yields a `Problem` per violating event: payload per type,
execution and ambiguity records, removals, sources and supporting messages, order, resolution links,
INTRODUCE uniqueness and what may follow REMOVE.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from reqbench.protocols.takeover.annotation.models import (
    AMBIGUITY_DIMENSIONS,
    EXECUTION_STATUS_BY_TYPE,
    EXECUTION_TYPES,
    PAYLOAD_FIELDS,
    RESOLVING_TYPES,
    EventType,
)
from reqbench.protocols.takeover.annotation.problems import Problem, all_events
from reqbench.protocols.takeover.annotation.problems import event_problem as _ev
from reqbench.protocols.takeover.annotation.project import Event, Project, Requirement, id_key


def rule_known_event_type(project: Project) -> Iterable[Problem]:
    """E01: the event type is one of the nine Stage-1 types."""
    for ev in all_events(project):
        if ev.event_type not in EventType.__members__:
            yield _ev("E01", ev, f"unknown event_type {ev.event_type!r}")


def _allowed_payload(event_type: EventType) -> set[str]:
    if event_type is EventType.INTRODUCE:
        return {"value_updates", "scope_updates"}
    if event_type is EventType.MODIFY:
        return {"value_updates", "value_removals", "scope_updates"}
    if event_type is EventType.AMBIGUOUS:
        return {"ambiguity"}
    if event_type in EXECUTION_TYPES:
        return {"execution"}
    return set()  # DEFER, RESUME, REMOVE


def rule_payload_allowed(project: Project) -> Iterable[Problem]:
    """E02: only the payload fields of the event's type may be non-null (FORMAT.md (a) payload rules)."""
    for ev in all_events(project):
        if ev.event_type not in EventType.__members__:
            continue
        et = EventType(ev.event_type)
        allowed = _allowed_payload(et)
        for name in PAYLOAD_FIELDS:
            if getattr(ev, name) is not None and name not in allowed:
                yield _ev("E02", ev, f"payload field {name} is not allowed on a {et} event")
        if ev.resolves_ambiguity_event_ids is not None and et not in RESOLVING_TYPES:
            yield _ev("E02", ev, f"payload field resolves_ambiguity_event_ids is not allowed on a {et} event")


def rule_payload_required(project: Project) -> Iterable[Problem]:
    """E03: INTRODUCE needs updates or scope; MODIFY one change; AMBIGUOUS an ambiguity; execution events
    an execution record."""
    for ev in all_events(project):
        et = ev.event_type
        if et == EventType.INTRODUCE and ev.value_updates is None and ev.scope_updates is None:
            yield _ev("E03", ev, "INTRODUCE needs value_updates or scope_updates")
        elif et == EventType.MODIFY and all(
            x is None for x in (ev.value_updates, ev.value_removals, ev.scope_updates)
        ):
            yield _ev("E03", ev, "MODIFY needs value_updates, value_removals or scope_updates")
        elif et == EventType.AMBIGUOUS and ev.ambiguity is None:
            yield _ev("E03", ev, "AMBIGUOUS needs an ambiguity record")
        elif et in EXECUTION_TYPES and ev.execution is None:
            yield _ev("E03", ev, f"{et} needs an execution record")


def rule_execution_record(project: Project) -> Iterable[Problem]:
    """E04: the execution status is fixed by the event type and the observed behavior is non-empty."""
    for ev in all_events(project):
        if ev.execution is None or ev.event_type not in EXECUTION_TYPES:
            continue
        expected = EXECUTION_STATUS_BY_TYPE[EventType(ev.event_type)]
        if ev.execution.get("status") != expected:
            yield _ev(
                "E04",
                ev,
                f"execution.status is {ev.execution.get('status')!r}, a {ev.event_type} "
                f"event requires {expected!r}",
            )
        if not str(ev.execution.get("observed_behavior", "")).strip():
            yield _ev("E04", ev, "execution.observed_behavior is empty")


def rule_ambiguity_record(project: Project) -> Iterable[Problem]:
    """E05: an ambiguity has a dimension VALUE/SCOPE/LIFECYCLE and a non-empty description."""
    for ev in all_events(project):
        if ev.ambiguity is None:
            continue
        if ev.ambiguity.get("dimension") not in AMBIGUITY_DIMENSIONS:
            yield _ev(
                "E05",
                ev,
                f"ambiguity.dimension {ev.ambiguity.get('dimension')!r} is not one of "
                f"{', '.join(AMBIGUITY_DIMENSIONS)}",
            )
        if not str(ev.ambiguity.get("description", "")).strip():
            yield _ev("E05", ev, "ambiguity.description is empty")


def rule_value_removals_shape(project: Project) -> Iterable[Problem]:
    """E06: value_removals is a non-empty array of unique non-empty strings."""
    for ev in all_events(project):
        rem = ev.value_removals
        if rem is None:
            continue
        if not rem:
            yield _ev("E06", ev, "value_removals is an empty array (use null)")
        if any(not isinstance(k, str) or not k.strip() for k in rem):
            yield _ev("E06", ev, "value_removals must contain non-empty strings only")
        elif len(set(rem)) != len(rem):
            yield _ev("E06", ev, "value_removals repeats a key")


def rule_remove_and_update_same_key(project: Project) -> Iterable[Problem]:
    """E07: a key cannot be removed and updated in the same event (paper A.1)."""
    for ev in all_events(project):
        if ev.value_removals and ev.value_updates:
            both = sorted({k for k in ev.value_removals if isinstance(k, str)} & set(ev.value_updates))
            if both:
                yield _ev("E07", ev, f"key(s) {', '.join(both)} are both removed and updated in one event")


def rule_source_message_known(project: Project) -> Iterable[Problem]:
    """E08: the source message id exists in the catalog."""
    for ev in all_events(project):
        if id_key(ev.source_message_id) not in project.positions:
            yield _ev("E08", ev, f"source message {ev.source_message_id!r} is not in the catalog")


def rule_source_matches_catalog(project: Project) -> Iterable[Problem]:
    """E09: the source text and speaker equal the catalog message."""
    for ev in all_events(project):
        if id_key(ev.source_message_id) not in project.positions:
            continue
        msg = project.message(ev.source_message_id)
        if ev.source_text != msg["text"]:
            yield _ev("E09", ev, f"source text differs from the text of message {ev.source_message_id!r}")
        if ev.source_speaker != msg["speaker"]:
            yield _ev(
                "E09",
                ev,
                f"source speaker {ev.source_speaker!r} differs from the catalog speaker "
                f"{msg['speaker']!r} of message {ev.source_message_id!r}",
            )


def rule_supporting_messages(project: Project) -> Iterable[Problem]:
    """E10: supporting ids are scalar, known, unique and never the source message."""
    for ev in all_events(project):
        seen: set[str] = set()
        for mid in ev.supporting_message_ids:
            if mid is None or isinstance(mid, (bool, dict, list)):
                yield _ev("E10", ev, f"supporting message id {mid!r} is not a scalar id")
                continue
            key = id_key(mid)
            if key not in project.positions:
                yield _ev("E10", ev, f"supporting message {mid!r} is not in the catalog")
            if key == id_key(ev.source_message_id):
                yield _ev("E10", ev, f"supporting message {mid!r} repeats the source message")
            elif key in seen:
                yield _ev("E10", ev, f"supporting message {mid!r} is listed twice")
            seen.add(key)


def rule_events_in_conversation_order(project: Project) -> Iterable[Problem]:
    """E11: a requirement's events follow conversation order of their source messages."""
    for req in project.requirements:
        last = -1
        for ev in req.events:
            pos = project.positions.get(id_key(ev.source_message_id))
            if pos is None:
                continue
            if pos < last:
                yield _ev("E11", ev, "event is sourced at an earlier message than the event before it")
            last = max(last, pos)


def _resolution_links(req: Requirement) -> Iterator[tuple[Event, Any]]:
    for ev in req.events:
        for target in ev.resolves_ambiguity_event_ids or []:
            yield ev, target


def rule_resolution_list_shape(project: Project) -> Iterable[Problem]:
    """E12: resolves_ambiguity_event_ids is null or a non-empty array of unique strings."""
    for ev in all_events(project):
        ids = ev.resolves_ambiguity_event_ids
        if ids is None:
            continue
        if not ids:
            yield _ev("E12", ev, "resolves_ambiguity_event_ids is an empty array (use null)")
        elif any(not isinstance(x, str) for x in ids) or len(set(map(str, ids))) != len(ids):
            yield _ev("E12", ev, "resolves_ambiguity_event_ids must hold unique event id strings")


def rule_resolution_targets(project: Project) -> Iterable[Problem]:
    """E13/E14/E15: each resolution names an earlier AMBIGUOUS event of the same requirement."""
    owner = {ev.event_id: ev for ev in all_events(project)}
    for req in project.requirements:
        for ev, target in _resolution_links(req):
            other = owner.get(target) if isinstance(target, str) else None
            if other is None:
                yield _ev("E13", ev, f"resolves unknown event {target!r} (dangling resolution)")
            elif other.requirement_id != req.requirement_id:
                yield _ev(
                    "E14",
                    ev,
                    f"resolves {target} of requirement {other.requirement_id} (cross-atom resolution)",
                )
            elif other.event_type != EventType.AMBIGUOUS or other.index >= ev.index:
                yield _ev("E15", ev, f"resolves {target}, which is not an earlier AMBIGUOUS event")


def rule_resolve_once(project: Project) -> Iterable[Problem]:
    """E16: each ambiguity is resolved at most once."""
    for req in project.requirements:
        first: dict[str, str] = {}
        for ev, target in _resolution_links(req):
            key = str(target)
            if key in first:
                yield _ev("E16", ev, f"resolves {key} again (already resolved by {first[key]})")
            else:
                first[key] = ev.event_id


def rule_single_introduce(project: Project) -> Iterable[Problem]:
    """E17: an atom has at most one INTRODUCE."""
    for req in project.requirements:
        intro = [ev for ev in req.events if ev.event_type == EventType.INTRODUCE]
        for ev in intro[1:]:
            yield _ev("E17", ev, f"second INTRODUCE (first is {intro[0].event_id})")


def rule_nothing_after_remove(project: Project) -> Iterable[Problem]:
    """E18: after REMOVE only implementation evidence may follow (paper A.1; the released code
    rejected every later event, the paper permits claims, failures and verifications)."""
    for req in project.requirements:
        removed_by: str | None = None
        for ev in req.events:
            if removed_by and ev.event_type not in EXECUTION_TYPES:
                yield _ev(
                    "E18",
                    ev,
                    f"{ev.event_type} after REMOVE ({removed_by}); only implementation "
                    "evidence may follow a removal",
                )
            if ev.event_type == EventType.REMOVE and removed_by is None:
                removed_by = ev.event_id


EVENT_RULES: list[Callable[[Project], Iterable[Problem]]] = [
    rule_known_event_type,
    rule_payload_allowed,
    rule_payload_required,
    rule_execution_record,
    rule_ambiguity_record,
    rule_value_removals_shape,
    rule_remove_and_update_same_key,
    rule_source_message_known,
    rule_source_matches_catalog,
    rule_supporting_messages,
    rule_events_in_conversation_order,
    rule_resolution_list_shape,
    rule_resolution_targets,
    rule_resolve_once,
    rule_single_introduce,
    rule_nothing_after_remove,
]
