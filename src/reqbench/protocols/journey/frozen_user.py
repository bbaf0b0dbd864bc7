"""Frozen simulated users: replaying a pilot session's user turns to another assistant whenever the
conversation reaches the same state, so configurations are compared under the same user behaviour.

Every interactive session records its user turns (artifact ``user_turns.json``): per *reaction* of the
simulated user -- position 0 is the opening message, position k the reaction to assistant turn k -- its
**matching key**, the `UserTurn` it produced and the simulator's checkpoint after it. The matching key is
exactly what decides the reaction besides the assistant's wording:

* ``position`` -- the reaction number (0 = opening, k = after assistant turn k);
* ``state`` -- the simulator's state *before* the reaction: every subtask's status (hidden / active /
  done / dropped), the confidence (0-100) and the list of subtasks disclosed so far, in order;
* ``tests`` -- the hidden-test results the reaction observes (node id -> passed): the base repository's
  at position 0, the snapshot after turn k at position k;
* ``previous_tests`` -- the results of the turn before (None at position 0), from which regressions
  and progress are read;
* ``assistant_failed`` -- whether the assistant's turn failed (False at position 0).

The assistant's reply text, its changed files and diff are deliberately *not* in the key: a frozen user
reacts as the pilot's user did to the same observable progress, whatever the assistant wrote (while
replaying, a question the assistant phrased differently gets the pilot user's answer).

A session run with ``--agent-opt journey.frozen_user=PATH`` wraps its simulator in `FrozenUser`: before
each reaction it computes the key from the live simulator's state and the observation; when the pilot
session of the same (instance, condition, repeat) has a reaction with the same key (sha256 of the key's
canonical JSON), that reaction is replayed -- its `UserTurn` returned and the simulator set to the
pilot's checkpoint after it (its own usage kept), so a later live reaction continues from the pilot's
state. Otherwise the live simulator reacts, and the reaction records why it could not be replayed (the
first differing part of the key, or that the pilot had no reaction at that position). The file is
written by `frozen_sessions` from the pilot's rows (`reqbench study` with ``freeze_user_from``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import Usage
from reqbench.core.errors import InputError
from reqbench.core.execute.types import Row
from reqbench.core.hashing import sha256_json
from reqbench.protocols.journey.online import TestRun
from reqbench.protocols.journey.simulators.base import (
    Observation,
    SimState,
    UserSimulator,
    UserTurn,
    turn_from_dict,
)

ARTIFACT = "user_turns.json"
FORMAT = "journey-frozen-user-v1"
KEY_PARTS = {"state": "the simulated user's state (statuses, confidence, disclosed) differs",
             "tests": "the hidden-test results differ", "previous_tests": "the previous turn's hidden-test "
             "results differ", "assistant_failed": "the assistant's turn failed in one session only"}


def reaction_key(position: int, state: SimState, tests: dict[str, bool], previous: dict[str, bool] | None,
                 assistant_failed: bool) -> dict[str, Any]:
    """The matching key of one reaction (module docstring)."""
    return {"position": position, "state": {"status": state.snapshot(), "confidence": state.confidence,
                                            "disclosed": list(state.disclosed)},
            "tests": dict(sorted(tests.items())), "previous_tests": None if previous is None
            else dict(sorted(previous.items())), "assistant_failed": bool(assistant_failed)}


def key_hash(key: dict[str, Any]) -> str:
    return sha256_json(key)


def session_key(row: Row) -> str:
    """Sessions line up across configurations by (instance, condition, repeat): the agent is not in it."""
    return f"{row.task_id}|{row.condition}|{row.repeat}"


def why_live(key: dict[str, Any], pilot: dict[str, Any] | None) -> str:
    """Why a reaction could not be replayed, against the pilot's reaction at the same position."""
    if pilot is None:
        return "the pilot session has no reaction at this position"
    return next((text for part, text in KEY_PARTS.items() if pilot["key"].get(part) != key.get(part)),
                "the key differs")


class FrozenUser:
    """A `UserSimulator` that replays the pilot's reactions whose key matches and asks `inner` otherwise.
    `last_reaction` says what the latest reaction was (``replayed``, and ``diverged`` with the reason)."""

    def __init__(self, inner: UserSimulator, pilot: list[dict[str, Any]]) -> None:
        self.inner = inner
        self.name = inner.name
        self.by_hash = {str(e["key_hash"]): e for e in pilot}
        self.by_position = {int(e["key"]["position"]): e for e in pilot}
        self.last_reaction: dict[str, Any] = {}

    @property
    def state(self) -> SimState:
        return self.inner.state

    @state.setter
    def state(self, value: SimState) -> None:
        self.inner.state = value

    @property
    def usage(self) -> Usage:
        return self.inner.usage

    @usage.setter
    def usage(self, value: Usage) -> None:
        self.inner.usage = value

    def open(self, base: TestRun) -> UserTurn:
        return self._react(0, base.probes, None, False, lambda: self.inner.open(base))

    def respond(self, obs: Observation) -> UserTurn:
        return self._react(obs.turn, obs.tests.probes, obs.previous.probes, obs.assistant_failed,
                           lambda: self.inner.respond(obs))

    def _react(self, position: int, tests: dict[str, bool], previous: dict[str, bool] | None, failed: bool,
               live: Callable[[], UserTurn]) -> UserTurn:
        key = reaction_key(position, self.inner.state, tests, previous, failed)
        found = self.by_hash.get(key_hash(key))
        if found is None:
            self.last_reaction = {"replayed": False, "diverged": why_live(key, self.by_position.get(position))}
            return live()
        usage = self.inner.usage
        self.inner.restore(found["simulator"])
        self.inner.usage = usage  # the pilot's simulator cost is the pilot's
        self.last_reaction = {"replayed": True}
        return turn_from_dict(found["user"])

    def checkpoint(self) -> dict[str, Any]:
        return self.inner.checkpoint()

    def restore(self, state: dict[str, Any]) -> None:
        self.inner.restore(state)


def load_pilot(path: Path, row: Row) -> list[dict[str, Any]]:
    """The pilot's reactions for `row`'s session ([] when the pilot has none); `InputError` naming the file
    when it cannot be read or is not a frozen-user file."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError("no frozen simulated-user file here", file=str(path), item="journey.frozen_user") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read the frozen simulated-user file ({exc})", file=str(path),
                         item="journey.frozen_user") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("sessions"), dict):
        raise InputError(f"not a frozen simulated-user file (format {FORMAT} with sessions)", file=str(path),
                         item="journey.frozen_user")
    found = data["sessions"].get(session_key(row)) or []
    if not isinstance(found, list) or not all(isinstance(e, dict) and {"key", "key_hash", "user", "simulator"}
                                              <= set(e) for e in found):
        raise InputError("each reaction needs key, key_hash, user and simulator", file=str(path),
                         item=f"sessions.{session_key(row)}")
    return found


def frozen_sessions(sessions: list[tuple[Row, bytes]], pilot: str) -> dict[str, Any]:
    """The frozen-user document of a pilot's scored interactive sessions, each given as its row and its
    ``user_turns.json`` artifact."""
    return {"format": FORMAT, "pilot": pilot,
            "sessions": {session_key(row): [{k: e[k] for k in ("key", "key_hash", "user", "simulator")}
                                            for e in json.loads(blob)] for row, blob in sessions}}


def replay_summary(entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``{reactions, replayed, first_divergence}`` of a session run with a frozen user (None otherwise)."""
    marked = [e for e in entries if "replayed" in e]
    if not marked:
        return None
    first = next((e for e in marked if not e["replayed"]), None)
    return {"reactions": len(marked), "replayed": sum(1 for e in marked if e["replayed"]),
            "first_divergence": None if first is None else {"position": first["key"]["position"],
                                                            "why": first.get("diverged", "")}}
