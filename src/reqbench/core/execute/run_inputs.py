"""Inputs a run reads from outside its suite, as its provenance records them (``provenance.inputs``).

A protocol's options may name files outside the suite folder that change what an agent reads (takeover's
``--agent-opt takeover.phase_a_texts=DIR``). A loaded suite may say which, with the optional hook
``run_inputs(options) -> {name: facts}`` (JSON facts with a digest, a ``label`` and a ``statement``); the run
records them when it starts, every report prints each statement, and `changed_inputs` makes a resume refuse
a run whose inputs differ from the recorded ones (the suite's own files are checked by `lifecycle`).
"""

from __future__ import annotations

import json
from typing import Any

from reqbench.core.execute.types import RunOptions

PROVENANCE_KEY = "inputs"


def run_inputs(suite: Any, options: RunOptions) -> dict[str, Any]:
    """The suite's ``run_inputs(options)``, or {} for a suite without the hook."""
    hook = getattr(suite, "run_inputs", None)
    return dict(hook(options)) if callable(hook) else {}


def changed_inputs(stored: dict[str, Any], provenance: dict[str, Any]) -> list[str]:
    """Names of the inputs a resume would read differently from the run's start; [] for a run stored before
    inputs were recorded (nothing to compare with)."""
    if PROVENANCE_KEY not in stored:
        return []
    before, now = stored.get(PROVENANCE_KEY) or {}, provenance.get(PROVENANCE_KEY) or {}
    return sorted(name for name in set(before) | set(now) if before.get(name) != now.get(name))


def input_statements(provenance: dict[str, Any]) -> list[tuple[str, str]]:
    """``[(label, statement)]`` of the recorded inputs (an input's ``label``, else its name), as reports print
    them."""
    inputs = provenance.get(PROVENANCE_KEY) or {}
    return [(str(facts.get("label") or name), str(facts.get("statement") or json.dumps(facts, sort_keys=True)))
            for name, facts in sorted(inputs.items()) if isinstance(facts, dict)]
