"""Score a folder of frozen Phase-A responses (`reqbench takeover score-run DIR`).

Folder layout::

    DIR/
      instances/                                   RQ instance files, any depth: <target>_RQ{1,2,3}.json
      responses/<configuration>/<C1|C2>/<target>.json   one frozen response per target

Every target with an RQ3 instance is planned for every ``responses/<configuration>/<condition>``
folder present; a target whose response file is missing there is an agent failure (it stays in every
denominator, C.2). ``--instances`` may point elsewhere (e.g. a ReqMemBench ``outputs_new/stage2``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.protocols.takeover.judging import JudgeSession
from reqbench.protocols.takeover.response import check_response_text
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


def score_run(run_dir: Path, instances_dir: Path | None, session: JudgeSession
              ) -> dict[str, dict[str, list[TargetScore]]]:
    """Score every planned (configuration, condition, target); `session` keeps the judge records."""
    targets = discover_instances(instances_dir or run_dir / "instances")
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
