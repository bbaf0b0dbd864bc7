"""Small variants of the bundled takeover suite for end-to-end tests (symlinked, never copied)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from reqbench.core.bundled import bundled_suite

EXAMPLE = bundled_suite("takeover")


def mini_suite(dest: Path, targets: tuple[str, ...] = ("T001", "T002"), *,
               target_command: str | None = None, source: Path = EXAMPLE) -> Path:
    """A suite delivering only `targets` (short names like ``T001``) of `source` (default: the bundled
    suite). The dropped targets' reference patches move into the timeline, so every initial repository
    stays exactly as in the full suite."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("project", "repo", "timeline", "targets"):
        if (source / name).exists():  # a fetched repository (pypi: spec) has no folder
            (dest / name).symlink_to(source / name)
    suite = yaml.safe_load((source / "suite.yaml").read_text())
    selected = json.loads((source / "project" / "selected_target_times.json").read_text())
    message = {t["target_id"]: t["message_id"] for t in selected["selected_targets"]}
    keep = [d for d in suite["delivery"] if d["target_id"].split("_")[-1] in targets]
    dropped = [d for d in suite["delivery"] if d not in keep]
    suite["delivery"] = keep
    suite["timeline"] += [{"message_id": message[d["target_id"]], "patch": d["reference_patch"]} for d in dropped]
    if target_command is not None:
        suite["checks"]["target"] = {"command": target_command, "timeout_seconds": 60}
    (dest / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    return dest
