"""History truncation (B.1): user turns survive, recent context fits the low watermark, one retry."""

from __future__ import annotations

from pathlib import Path

from reqbench.core.agents.base import AgentResult, AgentStatus, Budget, Usage
from reqbench.protocols.journey.history import ELIDED, Watermarks, truncate, truncate_chat
from reqbench.protocols.journey.session import SessionLimits

from .sessions import run


def test_truncate_keeps_user_turns_and_most_recent_context() -> None:
    entries = [("user", "u1"), ("assistant", "a" * 50), ("assistant", "b" * 50), ("user", "u2"),
               ("assistant", "c" * 20)]
    marks = Watermarks(high=100, low=40)
    # size = len(text) + len(speaker) + 2: users 6 each, "c" entry 31 -> 43 > 40? no: budget 40 - 12 = 28
    assert truncate(entries, marks) == [("user", "u1"), ("note", ELIDED), ("user", "u2"), ("note", ELIDED)]
    assert truncate(entries, Watermarks(high=100, low=50)) == [("user", "u1"), ("note", ELIDED),
                                                               ("user", "u2"), ("assistant", "c" * 20)]
    assert truncate(entries[:2], marks) == entries[:2]  # under the high watermark: untouched


def test_truncate_chat_pins_system_and_user_turns() -> None:
    msgs = [{"role": "system", "content": "s"}, {"role": "user", "content": "do X"},
            {"role": "assistant", "content": "x" * 100}, {"role": "user", "content": "observation " * 10},
            {"role": "assistant", "content": "y" * 10}]
    # sizes: content + 16 -> 17, 20, 116, 136, 26; pinned 37; low 70 leaves 33: only the last message fits
    out = truncate_chat(msgs, {"do X"}, Watermarks(high=10, low=70))
    assert out == [msgs[0], msgs[1], {"role": "user", "content": ELIDED}, msgs[4]]


class _Overflowing:
    """An assistant whose context overflows once its history passes `limit` characters."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.messages: list[dict[str, str]] = [{"role": "system", "content": "sys"}]
        self.overflows = 0

    def send(self, user_message: str, budget: Budget) -> AgentResult:
        self.messages.append({"role": "user", "content": user_message})
        if sum(len(m["content"]) for m in self.messages) > self.limit:
            self.overflows += 1
            return AgentResult(AgentStatus.PROVIDER_ERROR, detail="maximum context length exceeded",
                               context_overflow=True)
        self.messages.append({"role": "assistant", "content": "thinking " * 40 + "ok"})
        return AgentResult(AgentStatus.COMPLETED, usage=Usage(cost_usd=0.0), reply="ok")

    def compact_history(self, keep):  # type: ignore[no-untyped-def]
        self.messages = keep(self.messages)

    def close(self) -> None:
        return None


def test_context_overflow_is_retried_once_at_the_low_watermark(calc_instance: Path, tmp_path: Path) -> None:
    holder: list[_Overflowing] = []

    def factory(inst, ws, sim):  # type: ignore[no-untyped-def]
        holder.append(_Overflowing(limit=1200))
        return holder[0]

    limits = SessionLimits(max_turns=4, watermarks=Watermarks(high=100_000, low=300))
    _, rec = run(calc_instance, "software-architect", factory, tmp_path, limits=limits)
    assert any(t.retried_overflow for t in rec.turns)
    assert all(t.status == "completed" for t in rec.turns)
    sent = {t.user_message for t in rec.turns}
    kept_users = [m["content"] for m in holder[0].messages if m["role"] == "user" and m["content"] in sent]
    assert kept_users == [t.user_message for t in rec.turns]  # every user turn survived, in order
