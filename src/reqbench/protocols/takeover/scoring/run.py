"""Score a folder of frozen Phase-A responses (`reqbench takeover score-run DIR`).

Folder layout::

    DIR/
      instances/                                   RQ instance files, any depth: <target>_RQ{1,2,3}.json
      responses/<configuration>/<C1|C2>/<target>.json   one frozen response per target

Every target with an RQ3 instance is planned for every ``responses/<configuration>/<condition>``
folder present; a target whose response file is missing there is an agent failure (it stays in every
denominator, C.2). ``--instances`` may point elsewhere (e.g. a ReqMemBench ``outputs_new/stage2``).

Because a misnamed file scores exactly like a missing one, `response_coverage` says per folder which
targets have no response and which files match no target, and scoring refuses a run where no file at
all matches a target (a wrong ``--instances`` or a renamed layout, not an agent that answered nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.judging import JudgeSession
from reqbench.protocols.takeover.phase_a.response import check_response_text
from reqbench.protocols.takeover.scoring.instances import (
    CONDITIONS,
    LoadedInstance,
    TargetInstances,
    load_instance,
)
from reqbench.protocols.takeover.scoring.target import TargetScore, score_target

_INSTANCE_FILE = re.compile(r".+_RQ([123])\.json$")


def discover_instances(root: Path) -> dict[str, TargetInstances]:
    """Every target under `root` that has an RQ3 instance, with its RQ1/RQ2 instances when present."""
    if not root.is_dir():
        raise InputError("instances folder does not exist", file=str(root))
    found: dict[str, dict[str, LoadedInstance]] = {}
    for path in sorted(root.rglob("*.json")):
        m = _INSTANCE_FILE.fullmatch(path.name)
        if not m:
            continue
        inst = load_instance(path)
        slot = found.setdefault(inst.meta.target_id, {})
        if inst.meta.rq_id in slot:
            raise InputError(f"second {inst.meta.rq_id} instance of target {inst.meta.target_id} "
                             f"(first: {slot[inst.meta.rq_id].path})", file=str(path))
        slot[inst.meta.rq_id] = inst
    targets = {tid: TargetInstances(rq3=s["RQ3"], rq1=s.get("RQ1"), rq2=s.get("RQ2"))
               for tid, s in sorted(found.items()) if "RQ3" in s}
    if not targets:
        raise InputError("no RQ3 instance files (*_RQ3.json) found", file=str(root))
    return targets


def response_folders(run_dir: Path) -> Iterator[tuple[str, str, Path]]:
    """(configuration, condition, folder) for every responses/<configuration>/<condition> folder."""
    base = run_dir / "responses"
    if not base.is_dir():
        raise InputError("has no responses/ folder (expected responses/<configuration>/<C1|C2>/)",
                         file=str(run_dir))
    for config in sorted(p for p in base.iterdir() if p.is_dir()):
        for cond in CONDITIONS:
            if (config / cond).is_dir():
                yield config.name, cond, config / cond


@dataclass(frozen=True)
class FolderCoverage:
    """Which targets of one ``responses/<configuration>/<condition>`` folder have a response file."""

    configuration: str
    condition: str
    matched: list[str]
    missing: list[str]
    """Targets without a response file here: scored as agent failures."""
    unmatched: list[str]
    """``*.json`` files here whose name is no target id: never read."""


def response_coverage(run_dir: Path, targets: dict[str, TargetInstances]) -> list[FolderCoverage]:
    """Per response folder, the targets matched and missing and the files matching no target;
    `InputError` when no file of any folder matches a target."""
    out = []
    for config, cond, folder in response_folders(run_dir):
        stems = sorted(p.stem for p in folder.glob("*.json") if p.is_file())
        out.append(FolderCoverage(config, cond, [t for t in targets if t in stems],
                                  [t for t in targets if t not in stems], [s for s in stems if s not in targets]))
    if out and not any(c.matched for c in out):
        files = sorted({f"{s}.json" for c in out for s in c.unmatched})
        shown = ", ".join(files[:5]) + (f" and {len(files) - 5} more" if len(files) > 5 else "") or "none"
        wanted = ", ".join(f"{t}.json" for t in list(targets)[:3])
        raise InputError(f"no response file matches a target (files: {shown}; expected names like {wanted}); "
                         "check --instances and the file names", file=str(run_dir / "responses"))
    return out


def score_run(run_dir: Path, instances_dir: Path | None, session: JudgeSession,
              targets: dict[str, TargetInstances] | None = None) -> dict[str, dict[str, list[TargetScore]]]:
    """Score every planned (configuration, condition, target); `session` keeps the judge records.
    `targets` are the discovered instances when the caller has them already."""
    targets = targets if targets is not None else discover_instances(instances_dir or run_dir / "instances")
    response_coverage(run_dir, targets)
    out: dict[str, dict[str, list[TargetScore]]] = {}
    for config, cond, folder in response_folders(run_dir):
        rows = out.setdefault(config, {}).setdefault(cond, [])
        for tid, inst in targets.items():
            path = folder / f"{tid}.json"
            text = path.read_text(encoding="utf-8-sig") if path.is_file() else None
            check = check_response_text(text, inst.visible_message_ids(cond))
            rows.append(score_target(inst, check, cond, session))
    if not out:
        raise InputError("no responses/<configuration>/<C1|C2>/ folder found", file=str(run_dir))
    return out
