"""`export_suite`: a reqbench suite written out as Harbor tasks (`docs/harbor.md`): journey instances (one
multi-step task each, here), SpecPath families (one task per history, `harbor_specpath`), PACE cases (one
task each, `harbor_pace`) and takeover delivery targets (one task each, `harbor_takeover`).

Each journey subtask is a ``[[steps]]`` entry whose ``instruction.md`` is the subtask's request and
acceptance criteria (the scripted user message), whose ``tests/`` hold the F2P and P2P node ids of every
subtask so far (cumulative), and whose ``solution/`` holds its reference patch and a ``solve.sh`` applying
it. The task's ``tests/`` hold the hidden tests and `harbor_score.SCORE_PY`; its ``environment/`` a
Dockerfile (`harbor_env`: the instance's ``environment:`` block, else ``python:3.11``, with pytest) whose
``COPY`` puts the base repository in ``/app``. The reward strategy is ``final``: the last step's reward is
the share of the instance's F2P nodes that pass, SWE-Journey's Final F2P.

Everything is written beside the destination and renamed into place; an instance this cannot export
(fetched sources) is one clear error and nothing is written.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.workspace import copy_tree
from reqbench.core.workspace.discard import discard
from reqbench.interop.harbor_env import TEST_SH_HEAD, dockerfile, toml_string, write_solution
from reqbench.interop.harbor_pace import pace_cases, write_pace_task
from reqbench.interop.harbor_score import SCORE_PY
from reqbench.interop.harbor_specpath import specpath_families, write_specpath_tasks
from reqbench.interop.harbor_takeover import takeover_targets, write_takeover_task
from reqbench.protocols.base import detect_protocol
from reqbench.protocols.journey.models import Instance, load_suite
from reqbench.protocols.journey.sources import is_source


def export_suite(suite: Path, out: Path) -> list[str]:
    """Write `suite` as Harbor task folders below `out` (must not exist); the report lines."""
    out = Path(out)
    if out.exists():
        raise InputError("already exists; choose a new folder", file=str(out))
    with tempdirs.folder("harbor-export-cache") as cache:
        return _export(out, _writers(Path(suite), Path(cache)))


def _writers(suite: Path, cache: Path) -> list[Callable[[Path], list[str]]]:
    """One writer per unit of the suite (each checked to be exportable first); `cache` holds what a
    protocol builds to read its units (takeover's release) until the export ends."""
    protocol = detect_protocol(suite).name
    if protocol == "journey":
        _, instances = load_suite(suite)
        for inst in instances:
            _exportable(inst)
        return [partial(_into, write_journey_task, inst, inst.id) for inst in instances]
    if protocol == "specpath":
        families = specpath_families(suite)
        return [partial(write_specpath_tasks, fam) for fam in families]
    if protocol == "pace":
        cases = pace_cases(suite)
        return [partial(_into, write_pace_task, case, case.id) for case in cases]
    if protocol == "takeover":
        targets = takeover_targets(suite, cache)
        return [partial(_into, write_takeover_task, target, target.target_id) for target in targets]
    raise InputError(f"exporting {protocol} suites to Harbor is not supported (journey, specpath, pace and "
                     "takeover are)", file=str(suite))


def _into(write: Callable[[Any, Path], list[str]], unit: Any, name: str, build: Path) -> list[str]:
    return write(unit, build / name)


def _export(out: Path, writers: list[Callable[[Path], list[str]]]) -> list[str]:
    out.absolute().parent.mkdir(parents=True, exist_ok=True)  # `--out runs/harbor/suite` in a fresh folder
    build = tempdirs.make("harbor-export", out.absolute().parent, hidden=True)
    try:
        report = [line for write in writers for line in write(build)]
        count = sum(1 for _ in build.iterdir())
        os.rename(build, out)
    except BaseException:
        discard(build)
        raise
    return [*report, f"wrote {count} Harbor task(s) to {out}"]


def _exportable(inst: Instance) -> None:
    env = inst.spec.testbed
    for text, item in [(inst.spec.repo, "repo"), (env.hidden_tests, "testbed.hidden_tests"),
                       *((s.reference_patch, f"{s.id}: reference_patch") for s in inst.subtasks)]:
        if is_source(text):
            raise InputError("a fetched source cannot be exported yet; export an instance with local files",
                             file=str(inst.root / "instance.yaml"), item=item)


def write_journey_task(inst: Instance, dest: Path) -> list[str]:
    """One journey instance as one multi-step Harbor task at `dest`; the report lines."""
    env = inst.spec.testbed
    copy_tree(inst.repo_dir, dest / "environment" / "repo")
    (dest / "environment" / "Dockerfile").write_text(
        dockerfile(inst.spec.environment, ["pytest"], origin=str(inst.root / "instance.yaml")))
    copy_tree(inst.hidden_dir, dest / "tests" / "hidden")
    (dest / "tests" / "score.py").write_text(SCORE_PY)
    path = ":".join(f"/app/{p}".rstrip("/.") or "/app" for p in env.pythonpath)
    toml = [f'schema_version = "1.4"\nsource = {toml_string("reqbench journey " + inst.id)}\n'
            'multi_step_reward_strategy = "final"\n', f"[metadata]\ntitle = {toml_string(inst.spec.title)}\n",
            f"[verifier]\ntimeout_sec = {float(env.timeout_seconds)}\n"
            + "".join(f"env.{k} = {toml_string(v)}\n" for k, v in sorted(env.env.items())),
            "[agent]\ntimeout_sec = 1800.0\n"]
    f2p: list[str] = []
    p2p: list[str] = []
    for sub in inst.subtasks:
        f2p += [n for n in sub.f2p if n not in f2p]
        p2p += [n for n in inst.p2p_of(sub) if n not in p2p]
        step = dest / "steps" / sub.id
        criteria = "".join(f"- {c}\n" for c in sub.acceptance_criteria)
        (step / "tests").mkdir(parents=True)
        (step / "instruction.md").write_text(sub.request.strip() + "\n" + (f"\nAcceptance criteria:\n{criteria}"
                                                                             if criteria else ""))
        nodes = {"f2p": [f"hidden/{n}" for n in f2p], "p2p": [f"hidden/{n}" for n in p2p if n not in f2p]}
        (step / "tests" / "nodes.json").write_text(json.dumps(nodes, indent=1))
        (step / "tests" / "test.sh").write_text(
            TEST_SH_HEAD + f"cd /tests && PYTHONPATH={shlex.quote(path)} python3 /tests/score.py /tests/nodes.json\n")
        write_solution(step, inst.patch_text(sub))
        toml.append(f'[[steps]]\nname = "{sub.id}"\n')
    (dest / "task.toml").write_text("\n".join(toml))
    lines = [f"{inst.id}: the test command {env.test_command!r} is not exported; each step runs pytest on "
             "its node ids (tests/score.py)"]
    return lines
