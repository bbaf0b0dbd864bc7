"""The journey row page as data (`core.views`): the conversation between the simulated user and the
assistant, turn by turn, with each turn's status, the user's confidence, the online tests passing and the
checklist after it (SWE-Journey §3.2-3.4), read from the session's stored ``transcript.json``."""

from __future__ import annotations

from typing import Any

from reqbench.core.views import AttemptRecord, Chat, Heading, Inline, Message, RowView, Status, as_dict, fmt, json_dict


def _turn(turn: dict[str, Any]) -> tuple[Message, Message]:
    probes = json_dict(turn.get("probes"))
    passed = sum(1 for v in probes.values() if v is True)
    checklist: tuple[Inline, ...] = ("checklist:", *(Status(s, f"{t}:{s}") for t, s in
                                                      as_dict(turn.get("statuses_after")).items()))
    facts: tuple[Inline, ...] = (
        f"turn {turn.get('index')} · status", Status(turn.get("status")),
        f"· user confidence {fmt(turn.get('confidence_after'))} · tests {passed}/{len(probes)} passing · "
        f"steps {turn.get('steps')}")
    changed = ", ".join(map(str, turn.get("changed_files") or [])) or "no files"
    user = Message("user", f"simulated user · turn {turn.get('index')}", str(turn.get("user_message") or ""))
    reply = Message("assistant", f"assistant · changed {changed}", str(turn.get("reply") or ""),
                    notes=(facts, checklist))
    return user, reply


def row_view(record: AttemptRecord) -> RowView:
    transcript = record.artifact_json("transcript.json")
    if not isinstance(transcript, dict):
        return RowView(())
    messages = [m for turn in transcript.get("turns") or [] if isinstance(turn, dict) for m in _turn(turn)]
    if transcript.get("final_message"):
        messages.append(Message("user", f"simulated user · end ({transcript.get('end_reason')})",
                                str(transcript["final_message"])))
    return RowView((Heading("conversation"), Chat(tuple(messages))))

