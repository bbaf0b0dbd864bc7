"""`export_suite`: a reqbench suite written out as Harbor tasks (`docs/harbor.md`). Done: journey
instances (one multi-step task each, here) and SpecPath families (one task per history,
`harbor_specpath`). Each journey subtask is a ``[[steps]]`` entry whose ``instruction.md`` is the
subtask's request and acceptance criteria (the scripted user message), whose ``tests/`` hold the F2P and
P2P node ids of every subtask so far (cumulative), and whose ``solution/`` holds its reference patch and a
``solve.sh`` applying it. The task's ``tests/`` hold the hidden tests and `harbor_score.SCORE_PY`; its
``environment/`` a Dockerfile whose ``COPY`` puts the base repository in ``/app``. The reward strategy is
``final``: the last step's reward is the share of the instance's F2P nodes that pass, SWE-Journey's Final
F2P.

Everything is written beside the destination and renamed into place; an instance this cannot export
(fetched sources) is one clear error and nothing is written.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable
from pathlib import Path

from reqbench.core import tempdirs
from reqbench.core.errors import InputError
from reqbench.core.workspace import copy_tree
from reqbench.core.workspace.discard import discard
from reqbench.interop.harbor_score import SCORE_PY
from reqbench.interop.harbor_specpath import specpath_families, write_specpath_tasks
from reqbench.protocols.base import detect_protocol
from reqbench.protocols.journey.models import Instance, load_suite
from reqbench.protocols.journey.sources import is_source

DOCKERFILE = "FROM python:3.11-slim\nRUN pip install pytest\nCOPY repo/ /app/\nWORKDIR /app\n"


def export_suite(suite: Path, out: Path) -> list[str]:
    """Write `suite` as Harbor task folders below `out` (must not exist); the report lines."""
    out = Path(out)
    if out.exists():
        raise InputError("already exists; choose a new folder", file=str(out))
    protocol = detect_protocol(Path(suite)).name
    if protocol == "journey":
        _, instances = load_suite(Path(suite))
        for inst in instances:
            _exportable(inst)
        writers: list[Callable[..., list[str]]] = [
            lambda build, inst=inst: write_journey_task(inst, build / inst.id) for inst in instances]
    elif protocol == "specpath":
        families = specpath_families(Path(suite))
        writers = [lambda build, fam=fam: write_specpath_tasks(fam, build) for fam in families]
    else:
        raise InputError(f"exporting {protocol} suites to Harbor is not done yet (journey and specpath are)",
                         file=str(suite))
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


def _toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string


def write_journey_task(inst: Instance, dest: Path) -> list[str]:
    """One journey instance as one multi-step Harbor task at `dest`; the report lines."""
    env = inst.spec.testbed
    copy_tree(inst.repo_dir, dest / "environment" / "repo")
    (dest / "environment" / "Dockerfile").write_text(DOCKERFILE)
    copy_tree(inst.hidden_dir, dest / "tests" / "hidden")
    (dest / "tests" / "score.py").write_text(SCORE_PY)
    path = ":".join(f"/app/{p}".rstrip("/.") or "/app" for p in env.pythonpath)
    toml = [f'schema_version = "1.4"\nsource = {_toml_string("reqbench journey " + inst.id)}\n'
            'multi_step_reward_strategy = "final"\n', f"[metadata]\ntitle = {_toml_string(inst.spec.title)}\n",
            f"[verifier]\ntimeout_sec = {float(env.timeout_seconds)}\n"
            + "".join(f"env.{k} = {_toml_string(v)}\n" for k, v in sorted(env.env.items())),
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
            f"#!/bin/bash\ncd /tests && PYTHONPATH={shlex.quote(path)} python3 /tests/score.py /tests/nodes.json\n")
        (step / "solution").mkdir()
        (step / "solution" / "reference.patch").write_text(inst.patch_text(sub))
        (step / "solution" / "solve.sh").write_text("#!/bin/bash\ngit apply --whitespace=nowarn "
                                                    "/solution/reference.patch\n")
        toml.append(f'[[steps]]\nname = "{sub.id}"\n')
    (dest / "task.toml").write_text("\n".join(toml))
    lines = [f"{inst.id}: the test command {env.test_command!r} is not exported; each step runs pytest on "
             "its node ids (tests/score.py)"]
    if inst.spec.environment is not None:
        lines.append(f"{inst.id}: its environment block is not exported; environment/Dockerfile is "
                     "python:3.11-slim with pytest")
    return lines
