"""Everything a takeover row needs from its suite, derived once per run and cached on disk.

`SuiteContext.load` reads `suite.yaml`, builds the ReqMemBench release (state graph, gold, RQ1-RQ3
instances, Phase-A packages) into the run's cache with `build_release`, and hands out per-target views:
RQ instances, the public Phase-A files of a condition, and initial repositories. The cache lives under
the run's work directory, so concurrent rows share one build and resumed runs reuse it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from reqbench.core.errors import InputError
from reqbench.core.hashing import read_json, sha256_text
from reqbench.core.workspace import tree_hash
from reqbench.protocols.takeover.annotation.loading import load_project
from reqbench.protocols.takeover.delivery.initial import build_initial_repository
from reqbench.protocols.takeover.release.build import build_release
from reqbench.protocols.takeover.scoring.instances import TargetInstances, load_target
from reqbench.protocols.takeover.suite_file import DeliveryTarget, TakeoverSuite, load_suite

_LOCK = threading.Lock()
PUBLIC_FILES = ("task.json", "history.jsonl", "instructions.md", "response.schema.json")


@dataclass
class SuiteContext:
    suite_dir: Path
    suite: TakeoverSuite
    build_dir: Path
    cache_dir: Path

    @classmethod
    def load(cls, suite_dir: Path, cache_root: Path) -> SuiteContext:
        suite_dir = Path(suite_dir)
        suite = load_suite(suite_dir)
        project_dir = suite_dir / suite.project
        key = sha256_text(tree_hash(project_dir))[:16]
        cache_dir = Path(cache_root) / "takeover-cache"
        build_dir = cache_dir / f"build-{key}"
        with _LOCK:
            if not (build_dir / "RQ3" / "index.json").is_file():
                build_release(load_project(project_dir), build_dir)
        return cls(suite_dir, suite, build_dir, cache_dir)

    # -- targets -------------------------------------------------------------------------------
    def target_ids(self) -> list[str]:
        """Every selected target that has an RQ3 instance, in selection order."""
        index = read_json(self.build_dir / "RQ3" / "index.json")
        return [entry["target_id"] for entry in index["instances"]]

    def delivery(self, target_id: str) -> DeliveryTarget:
        d = self.suite.delivery_target(target_id)
        if d is None:
            raise InputError("is not a delivery target of this suite", file="suite.yaml", item=target_id)
        return d

    def instances(self, target_id: str) -> TargetInstances:
        def rq(n: int) -> Path | None:
            p = self.build_dir / f"RQ{n}" / f"{target_id}_RQ{n}.json"
            return p if p.is_file() else None

        rq3 = rq(3)
        if rq3 is None:
            raise InputError("has no RQ3 instance", file=str(self.build_dir), item=target_id)
        return load_target(rq3, rq(1), rq(2))

    def public_files(self, target_id: str, condition: str) -> dict[str, str]:
        """The public Phase-A files (task, history, instructions, schema) of `target_id` under C1/C2."""
        matches = sorted((self.build_dir / "rq_agent_inputs").glob(f"*/*/{target_id}/{condition}/public"))
        if not matches:
            raise InputError(f"has no Phase-A package for {condition}", file=str(self.build_dir),
                             item=target_id)
        return {name: (matches[0] / name).read_text(encoding="utf-8") for name in PUBLIC_FILES
                if (matches[0] / name).is_file()}

    def initial_repository(self, target_id: str) -> Path:
        return build_initial_repository(self.suite_dir, self.suite, target_id, self.cache_dir / "initial")

    def hidden_dir(self, target_id: str) -> Path:
        return self.suite_dir / self.delivery(target_id).hidden
