"""Small variants of the bundled takeover suite for end-to-end tests (symlinked, never copied)."""

from __future__ import annotations

import re
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "takeover"


def mini_suite(dest: Path, targets: tuple[str, ...] = ("T001", "T002"), *,
               target_command: str | None = None) -> Path:
    """A suite with only `targets` as delivery targets (optionally another target-gate command)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("project", "repo", "timeline", "targets"):
        (dest / name).symlink_to(EXAMPLE / name)
    text = (EXAMPLE / "suite.yaml").read_text()
    keep = [line for line in text.splitlines()
            if "target_id: DOCKSIDE_T" not in line or any(f"DOCKSIDE_{t}" in line for t in targets)]
    text = "\n".join(keep) + "\n"
    if target_command is not None:
        text = re.sub(r"  target: \{command: .*\}", f'  target: {{command: "{target_command}", timeout_seconds: 60}}',
                      text)
    (dest / "suite.yaml").write_text(text)
    return dest
