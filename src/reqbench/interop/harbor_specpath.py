"""A SpecPath family as Harbor tasks: one single-step task per history (condition). The instruction is the
one a SpecPath row gives (the history inline), the history file sits in the starting repository as in a
row's workspace, ``tests/`` holds the hidden probes and `harbor_score.SCORE_PY`, and the reward is 1 only
when every probe of the family passes (SpecPath's success, whose rate over histories is the FCR).
``solution/`` holds the family's reference patch; ``environment/`` the family's ``environment:`` block as a
Dockerfile (`harbor_env`)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.workspace import copy_tree
from reqbench.interop.harbor_env import TEST_SH_HEAD, dockerfile, write_solution
from reqbench.interop.harbor_score import SCORE_PY
from reqbench.protocols.specpath.family import HISTORY_FILE, Family, load_family, load_suite, render_history
from reqbench.protocols.specpath.runs import INSTRUCTIONS


def specpath_families(suite: Path) -> list[Family]:
    """The suite's families, each checked to be exportable (local files, the standard verifier)."""
    _, folders = load_suite(suite)
    families = [load_family(folder) for folder in folders]
    for family in families:
        if family.spec.verifier.command:
            raise InputError("a custom verifier command cannot be exported yet", file=str(family.root / "family.yaml"),
                             item="verifier.command")
        if not family.base_repo.is_dir() or not family.hidden_dir.is_dir():
            raise InputError("a fetched base or hidden source cannot be exported yet",
                             file=str(family.root / "family.yaml"), item="base_repo")
    return families


def write_specpath_tasks(family: Family, out: Path) -> list[str]:
    """One task per history of `family` below `out`; the report lines."""
    spec = family.spec.verifier
    path = ":".join(f"/app/{p.strip('/')}".rstrip("/.") or "/app" for p in spec.pythonpath or ["."])
    for condition, history in sorted(family.histories.items()):
        dest = out / f"{family.id}__{condition}"
        text = render_history(history)
        copy_tree(family.base_repo, dest / "environment" / "repo")
        (dest / "environment" / "repo" / HISTORY_FILE).write_text(text, encoding="utf-8")
        (dest / "environment" / "Dockerfile").write_text(
            dockerfile(family.spec.environment, ["pytest"], origin=str(family.root / "family.yaml")))
        copy_tree(family.hidden_dir, dest / "tests" / "hidden")
        (dest / "tests" / "score.py").write_text(SCORE_PY)
        nodes = {"f2p": [f"hidden/{p}" for p in family.probes], "p2p": [], "all_or_nothing": True}
        (dest / "tests" / "nodes.json").write_text(json.dumps(nodes, indent=1))
        (dest / "tests" / "test.sh").write_text(
            TEST_SH_HEAD + f"cd /tests && PYTHONPATH={shlex.quote(path)} python3 /tests/score.py /tests/nodes.json\n")
        (dest / "instruction.md").write_text(INSTRUCTIONS.format(file=HISTORY_FILE, history=text), encoding="utf-8")
        write_solution(dest, family.reference_text)
        (dest / "task.toml").write_text(
            f'schema_version = "1.4"\nsource = {json.dumps(f"reqbench specpath {family.id} {condition}")}\n\n'
            f"[verifier]\ntimeout_sec = {float(spec.timeout_seconds)}\n\n[agent]\ntimeout_sec = 1800.0\n")
    return [f"{family.id}: {len(family.histories)} histories, one task each; the history file "
            f"{HISTORY_FILE} is part of the starting repository"]
