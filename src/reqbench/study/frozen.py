"""Frozen simulated users in a study (``freeze_user_from: PILOT``, for a protocol whose study hook has them:
`ProtocolStudy.frozen_user_option`): the pilot's rows run first, then its scored sessions' user reactions
are written to ``frozen-user.json`` in the study directory, and every other configuration runs with the
protocol's frozen-user agent option naming that file, so its sessions replay the pilot's user turns
whenever the conversation state matches (the protocol defines the matching key).

The file is written after the pilot's phase of every `study run`, `--resume` and `study add`, from the
pilot's selected scored attempts (rewritten only when its content changed), before any other
configuration's row starts.
"""

from __future__ import annotations

import json
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.execute.suite import SuiteProtocol
from reqbench.core.execute.types import RowStatus
from reqbench.core.hashing import atomic_write_text
from reqbench.core.protocol_study import ProtocolStudy
from reqbench.core.store import RunStore
from reqbench.protocols.base import available_protocols
from reqbench.study.spec import StudyFile


def frozen_user_option(protocol: SuiteProtocol, spec: StudyFile) -> str:
    """The agent option through which the study hands its frozen users to `protocol`'s runs; `InputError`
    (item ``freeze_user_from``) when the protocol has no simulated users to freeze, or when a configuration
    sets that option itself."""
    option = protocol.study().frozen_user_option
    if option is None:
        offered = [p.name for p in available_protocols() if p.study().frozen_user_option is not None]
        raise InputError(f"frozen simulated users are a feature of {' and '.join(offered) or 'no installed protocol'}"
                         f"; this suite is {protocol.name}", item="freeze_user_from")
    taken = [c.name for c in spec.configurations if option in c.agent_options()]
    if taken:
        raise InputError(f"configuration {taken[0]!r} sets {option}, which freeze_user_from sets for every "
                         "configuration but the pilot", item="freeze_user_from")
    return option


def write_frozen_users(study: ProtocolStudy, store: RunStore, pilot: str, path: Path) -> int:
    """Write the pilot's frozen users to `path`; returns the number of sessions in it."""
    sessions = []
    for row, attempt, _ in store.selected_attempts():
        sha = attempt.artifacts.get(study.frozen_user_artifact) if attempt is not None else None
        if attempt is not None and attempt.status is RowStatus.SCORED and sha is not None:
            sessions.append((row, store.artifacts.get(sha)))
    text = json.dumps(study.frozen_user_document(sessions, pilot), ensure_ascii=False, sort_keys=True)
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        atomic_write_text(path, text)
    return len(sessions)
