"""Takeover construction speed: replay + full build on a synthetic project of realistic size.

A 1,000-message project with 60 requirement atoms and ~600 events, 40 targets (the released benchmark's
largest projects have ~1,075 messages). Prints seconds for load+validate, replay and the whole build.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path

from reqbench.protocols.takeover.annotation.loading import load_project_data
from reqbench.protocols.takeover.annotation.replay import replay
from reqbench.protocols.takeover.release.build import build_release

sys.path.insert(0, str(Path(__file__).parent))
from ratios import cpu_unit, figure  # noqa: E402


def synthetic(n_messages: int = 1000, n_atoms: int = 60, seed: int = 7) -> tuple[dict, dict, dict]:
    rng = random.Random(seed)
    msgs = [
        {
            "message_id": i,
            "created_ts": None,
            "speaker": "client" if i % 2 else "freelancer",
            "text": f"message {i} " + "lorem " * rng.randint(5, 60),
            "milestone": None,
        }
        for i in range(1, n_messages + 1)
    ]
    reqs, used = [], set()
    for a in range(n_atoms):
        rid = f"REQ_ATOM_{a:03d}"
        mids = sorted(rng.sample(range(3, n_messages + 1, 2), 10))
        events = []
        for j, mid in enumerate(mids, start=1):
            kind = "INTRODUCE" if j == 1 else "MODIFY"
            m = msgs[mid - 1]
            events.append(
                {
                    "event_id": f"{rid}_E{j:03d}",
                    "source_message": {"message_id": mid, "speaker": m["speaker"], "text": m["text"]},
                    "supporting_message_ids": [mid - 1],
                    "event_type": kind,
                    "value_updates": {f"k{j % 4}": j},
                    "value_removals": None,
                    "scope_updates": {"persistence": "TASK_LOCAL", "components": ["APP"], "contexts": None},
                    "ambiguity": None,
                    "execution": None,
                    "resolves_ambiguity_event_ids": None,
                }
            )
            used.add(mid)
        reqs.append({"requirement_id": rid, "title": f"Atom {a}", "family_id": f"F{a % 5}", "events": events})
    targets = sorted(rng.sample(sorted(used), 40))
    return (
        {"project_id": "BENCH", "project_title": "bench", "messages": msgs},
        {
            "annotation_version": "v0.6",
            "project": {"project_id": "BENCH"},
            "requirement_families": [{"family_id": f"F{i}", "title": ""} for i in range(5)],
            "requirements": reqs,
        },
        {
            "project_id": "BENCH",
            "selected_targets": [
                {"target_id": f"BENCH_T{i:03d}", "message_id": m} for i, m in enumerate(targets, start=1)
            ],
        },
    )


def main() -> None:
    raw = synthetic()
    t0 = time.perf_counter()
    project = load_project_data(*raw, name="bench")
    t1 = time.perf_counter()
    replay(project)
    t2 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        result = build_release(project, Path(tmp) / "out")
    t3 = time.perf_counter()
    print(
        f"load+validate {t1 - t0:.2f}s  replay {t2 - t1:.2f}s  build {t3 - t2:.2f}s "
        f"({sum(result.instance_counts.values())} instances, {len(result.packages)} packages)"
    )
    figure("takeover: build 1,000-message project", t3 - t0, "CPU unit", cpu_unit())


if __name__ == "__main__":
    main()
