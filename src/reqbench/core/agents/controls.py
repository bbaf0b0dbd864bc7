"""Control agents: `null` (changes nothing), `reference` (the suite's solution), `replay` (stored work).

Controls bracket every real agent: `null` is the floor a suite must fail, `reference` the ceiling it
must pass, and `replay` scores frozen submissions produced elsewhere (patches and/or text replies).

Replay store (``--agent replay:PATH``), either
* a JSONL file, one object per row: ``{"row": ROW_KEY, "patch": TEXT, "reply": TEXT}`` (patch and
  reply each optional); a multi-turn session (journey) stores one object per turn with ``"turn": N``
  (1-based), or
* a directory of ``<sanitised row key>.patch`` files (and optional ``.reply`` text files), where the
  sanitised key replaces every character outside ``[A-Za-z0-9._-]`` by ``_``.
A row is found by its exact key, else by ``task|condition|repeat`` when the stored key names another
agent (frozen submissions usually come from a different agent than ``replay``), if that is unique.

Each control also serves multi-turn sessions (`start_session`, `control_sessions`).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget, TrajectoryEvent
from reqbench.core.agents.control_sessions import NullSession, ReferenceSession, ReplaySession
from reqbench.core.agents.declared import takes
from reqbench.core.errors import InputError
from reqbench.core.hashing import sha256_text
from reqbench.core.workspace import PatchApplyError, apply_patch


def sanitize_row_key(key: str) -> str:
    """The file-name form of a row key (``T1|C1|agent|0`` -> ``T1_C1_agent_0``)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", key)


def _apply(workspace: Path, patch: str, started: float, source: str,
           reply: str | None = None) -> AgentResult:
    event = TrajectoryEvent("file_edit", {"source": source, "patch_sha256": sha256_text(patch),
                                          "patch_bytes": len(patch.encode("utf-8"))})
    try:
        apply_patch(workspace, patch)
    except PatchApplyError as exc:
        return AgentResult(AgentStatus.ERROR, [event], wall_seconds=time.monotonic() - started,
                           reply=reply, detail=f"{source} patch does not apply: {exc}")
    trajectory = [event]
    if reply is not None:
        trajectory.append(TrajectoryEvent("reply", {"text": reply}))
    return AgentResult(AgentStatus.COMPLETED, trajectory, wall_seconds=time.monotonic() - started,
                       reply=reply)


@dataclass
class NullAgent:
    """Changes nothing and says nothing; always COMPLETED."""

    name: str = "null"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        return AgentResult(AgentStatus.COMPLETED, [TrajectoryEvent("note", {"text": "null agent"})])

    def start_session(self, workspace: Path, inputs: AgentInputs | None = None) -> NullSession:
        return NullSession()


@dataclass
class ReferenceAgent:
    """Applies ``inputs.context["reference_patch"]`` (patch text or a path to a patch file).

    ``context["reference_reply"]``, when present, becomes the reply. No reference at all is
    NO_SUBMISSION; a reference patch that does not apply is ERROR (a broken suite, named in detail).
    """

    name: str = "reference"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        started = time.monotonic()
        patch = inputs.context.get("reference_patch")
        reply = inputs.context.get("reference_reply")
        if isinstance(patch, Path):
            if not patch.is_file():
                raise InputError("reference patch not found", file=str(patch))
            patch = patch.read_text(encoding="utf-8")
        if patch is None:
            if reply is not None:
                return AgentResult(AgentStatus.COMPLETED, [TrajectoryEvent("reply", {"text": reply})],
                                   reply=str(reply))
            return AgentResult(AgentStatus.NO_SUBMISSION, detail="row has no reference solution")
        return _apply(Path(workspace), str(patch), started, "reference",
                      str(reply) if reply is not None else None)

    def start_session(self, workspace: Path, inputs: AgentInputs | None = None) -> ReferenceSession:
        return ReferenceSession.from_inputs(Path(workspace), inputs or AgentInputs())


@dataclass
class ReplayEntry:
    patch: str | None = None
    reply: str | None = None


def _load_jsonl(path: Path) -> tuple[dict[str, ReplayEntry], dict[str, dict[int, ReplayEntry]]]:
    """``(single-turn entries, {row: {turn: entry}})``; a row is stored either way, never both."""
    entries: dict[str, ReplayEntry] = {}
    turns: dict[str, dict[int, ReplayEntry]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        item = f"line {number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not JSON ({exc.msg})", file=str(path), item=item) from None
        if not isinstance(obj, dict) or not isinstance(obj.get("row"), str):
            raise InputError("expected an object with a string 'row'", file=str(path), item=item)
        for key in ("patch", "reply"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise InputError(f"'{key}' must be a string", file=str(path), item=item)
        entry = ReplayEntry(obj.get("patch"), obj.get("reply"))
        turn = obj.get("turn")
        if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool) or turn < 1):
            raise InputError("'turn' must be a positive integer", file=str(path), item=item)
        if obj["row"] in entries or (turn is None and obj["row"] in turns) \
                or (turn is not None and turn in turns.get(obj["row"], {})):
            raise InputError(f"row {obj['row']!r} appears twice", file=str(path), item=item)
        if turn is None:
            entries[obj["row"]] = entry
        else:
            turns.setdefault(obj["row"], {})[turn] = entry
    return entries, turns


def _load_dir(path: Path) -> dict[str, ReplayEntry]:
    entries: dict[str, ReplayEntry] = {}
    for file in sorted(path.iterdir()):
        if file.suffix not in (".patch", ".reply") or not file.is_file():
            continue
        entry = entries.setdefault(file.stem, ReplayEntry())
        text = file.read_text(encoding="utf-8")
        if file.suffix == ".patch":
            entry.patch = text
        else:
            entry.reply = text
    return entries


@dataclass
class ReplayAgent:
    """Applies the stored patch (and returns the stored reply) for ``context["row_key"]``."""

    store: Path
    entries: dict[str, ReplayEntry] = field(default_factory=dict)
    turns: dict[str, dict[int, ReplayEntry]] = field(default_factory=dict)
    """Multi-turn rows: ``{row: {turn: entry}}`` (JSONL objects with a ``turn``)."""
    name: str = "replay"

    @classmethod
    def load(cls, store: Path) -> ReplayAgent:
        if store.is_dir():
            return cls(store, _load_dir(store))
        if store.is_file():
            entries, turns = _load_jsonl(store)
            return cls(store, entries, turns)
        raise InputError("replay store not found (expected a JSONL file or a directory)",
                         file=str(store))

    def _key(self, row_key: str, keys: Any) -> str | None:
        """Exact key first, then the same ``task|condition|repeat`` under another agent if unique."""
        by_dir = self.store.is_dir()
        exact = sanitize_row_key(row_key) if by_dir else row_key
        if exact in keys:
            return exact
        parts = row_key.split("|")
        if len(parts) != 4:
            return None
        sep = "_" if by_dir else "|"
        prefix = sep.join(sanitize_row_key(p) if by_dir else p for p in parts[:2]) + sep
        suffix = sep + parts[3]
        matches = [k for k in keys if k.startswith(prefix) and k.endswith(suffix)
                   and (by_dir or len(k.split("|")) == 4)]
        return matches[0] if len(matches) == 1 else None

    def lookup(self, row_key: str) -> ReplayEntry | None:
        key = self._key(row_key, self.entries)
        return None if key is None else self.entries[key]

    def session_turns(self, row_key: str) -> dict[int, ReplayEntry]:
        """The stored turns of `row_key` (a single-turn entry is turn 1)."""
        key = self._key(row_key, self.turns)
        if key is not None:
            return self.turns[key]
        single = self.lookup(row_key)
        return {} if single is None else {1: single}

    def start_session(self, workspace: Path, inputs: AgentInputs | None = None) -> ReplaySession:
        row_key = (inputs.context.get("row_key") if inputs else None) or ""
        return ReplaySession(Path(workspace), self.session_turns(str(row_key)), f"replay ({self.store})", _apply)

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        started = time.monotonic()
        row_key = inputs.context.get("row_key")
        if not isinstance(row_key, str):
            return AgentResult(AgentStatus.NO_SUBMISSION, detail="row has no row_key in its context")
        entry = self.lookup(row_key)
        if entry is None or (entry.patch is None and entry.reply is None):
            return AgentResult(AgentStatus.NO_SUBMISSION,
                               detail=f"no stored submission for row {row_key!r} in {self.store}")
        if entry.patch is None:
            reply = entry.reply or ""
            return AgentResult(AgentStatus.COMPLETED, [TrajectoryEvent("reply", {"text": reply})],
                               wall_seconds=time.monotonic() - started, reply=reply)
        return _apply(Path(workspace), entry.patch, started, f"replay ({self.store})", entry.reply)


@takes()
def make_null(**opts: Any) -> NullAgent:
    return NullAgent()


@takes()
def make_reference(**opts: Any) -> ReferenceAgent:
    return ReferenceAgent()


@takes("path", "arg")
def make_replay(arg: str | Path | None = None, **opts: Any) -> ReplayAgent:
    """``--agent replay:PATH``; PATH is a JSONL file or a directory of ``.patch`` files."""
    path = arg if arg is not None else opts.get("path")
    if not path:
        raise InputError("replay needs a store: --agent replay:PATH", item="agent 'replay'")
    return ReplayAgent.load(Path(path))
