"""The verifier of an exported PACE case, run inside the Harbor task (``tests/test.sh``: ``python3 -P -m
reqbench.interop.harbor_pace_grade /tests/pace /logs/verifier WORKDIR``, with reqbench's own code under
``/tests/lib``; ``-P`` keeps the working directory off the import path). It only reads the tree (parses
it), never runs its code.

It grades the working directory exactly as a reqbench pace row grades an agent's workspace: the diff of
the tree against the case's base (``prd/`` left out, as the row removes it), scored by `pace.score.Scorer`
(L0 contracts, L1 evidence, L2 by the deterministic ``token-overlap`` judge), a patch that does not apply
scored as the empty candidate. It writes ``reward.json`` = ``{"reward": case score / 100}`` and the whole
case result to ``pace.json`` beside it. A score left open (unresolved evidence) writes no reward: Harbor
then reports the trial's verifier error, as reqbench leaves such a row pending.

The L2 judgment here is the token-overlap heuristic, not PACE's semantic judge: the reward is reqbench's
deterministic offline grading of the case, a smoke test of the pipeline, not a PACE score (the task's
README and ``[metadata]`` say so).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

JUDGE = "token-overlap"


def grade(case_dir: Path, workspace: Path, out: Path) -> dict[str, object]:
    """Score `workspace` against the case at `case_dir`; write ``reward.json`` and ``pace.json`` to `out`."""
    from reqbench.core.workspace import AgentFailure, safe_diff
    from reqbench.protocols.pace import repo
    from reqbench.protocols.pace.case import load_case
    from reqbench.protocols.pace.score import Scorer

    scorer = Scorer(load_case(case_dir))
    with tempfile.TemporaryDirectory(prefix="pace-grade-") as scratch:
        tree = Path(scratch) / "tree"
        shutil.copytree(workspace, tree, symlinks=True)
        shutil.rmtree(tree / "prd", ignore_errors=True)  # the PRD the task handed over, as a row removes it
        patch = safe_diff(scorer.base, tree)
    rejected = patch.reason if isinstance(patch, AgentFailure) else ""
    try:
        result = scorer.score("" if rejected else str(patch), JUDGE)
    except repo.PatchApplyError as exc:
        rejected, result = f"the workspace's diff does not apply to the base: {exc}"[:500], scorer.score("", JUDGE)
    record = {**result.to_dict(), **({"workspace_rejected": rejected} if rejected else {})}
    (out / "pace.json").write_text(json.dumps(record, indent=1, default=str), encoding="utf-8")
    if result.score is not None:
        (out / "reward.json").write_text(json.dumps({"reward": result.score / 100.0}), encoding="utf-8")
    return record


def main(argv: list[str]) -> int:
    # The verifier runs in the agent's container, after it: a fresh cache unless the image names one, and
    # never the table of compiled code (`core.code_cache`) -- code the agent could have planted there.
    os.environ.setdefault("REQBENCH_CACHE", tempfile.mkdtemp(prefix="reqbench-cache-"))
    os.environ["REQBENCH_CODE_CACHE"] = "0"
    case, out, workspace = argv
    record = grade(Path(case), Path(workspace), Path(out))
    print(f"pace case {record['case_id']}: score {record['score']} (judge {JUDGE})")
    return 0 if record["score"] is not None else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
