"""Frozen simulated users in a study (``freeze_user_from: PILOT``, journey): the pilot's rows run first,
then its scored sessions' user reactions are written to ``frozen-user.json`` in the study directory, and
every other configuration runs with the agent option ``journey.frozen_user`` naming that file, so its
sessions replay the pilot's user turns whenever the conversation state matches
(`protocols.journey.frozen_user` defines the matching key).

The file is written after the pilot's phase of every `study run`, `--resume` and `study add`, from the
pilot's selected scored attempts (rewritten only when its content changed), before any other
configuration's row starts.
"""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.execute.types import RowStatus
from reqbench.core.hashing import atomic_write_text
from reqbench.core.store import RunStore
from reqbench.study.readers.journey import USER_TURNS, frozen_document


def write_frozen_users(store: RunStore, pilot: str, path: Path) -> int:
    """Write the pilot's frozen users to `path`; returns the number of sessions in it."""
    sessions = []
    for row, attempt, _ in store.selected_attempts():
        sha = attempt.artifacts.get(USER_TURNS) if attempt is not None else None
        if attempt is not None and attempt.status is RowStatus.SCORED and sha is not None:
            sessions.append((row, store.artifacts.get(sha)))
    text = json.dumps(frozen_document(sessions, pilot), ensure_ascii=False, sort_keys=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return len(sessions)
