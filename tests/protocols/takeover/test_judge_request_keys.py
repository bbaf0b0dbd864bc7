"""Judge request keys address the cache and the replay files: they must not depend on the key order of
the response's JSON objects (a frozen response read back from the store has sorted keys)."""

from pathlib import Path
from typing import Any

from reqbench.core.bundled import bundled_suite
from reqbench.core.judges.factory import make_judge
from reqbench.protocols.takeover.annotation.loading import load_project
from reqbench.protocols.takeover.release.build import build_release
from reqbench.protocols.takeover.scoring.instances import load_target
from reqbench.protocols.takeover.scoring.target import gold_response, score_target

EXAMPLE = bundled_suite("takeover/project")


def reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reversed_keys(v) for v in value]
    return value


def test_request_keys_do_not_depend_on_response_key_order(tmp_path: Path):
    build_release(load_project(EXAMPLE), tmp_path / "build")
    for target in ("DOCKSIDE_T001", "DOCKSIDE_T004"):
        rq = {n: tmp_path / "build" / f"RQ{n}" / f"{target}_RQ{n}.json" for n in (1, 2, 3)}
        inst = load_target(rq[3], rq[1], rq[2])
        response = gold_response(inst, "C1")
        keys = [[r["request_key"] for r in score_target(inst, resp, "C1", make_judge("exact")).judge_records]
                for resp in (response, reversed_keys(response))]
        assert keys[0] and keys[0] == keys[1]
