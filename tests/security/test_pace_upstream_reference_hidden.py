"""Red team: a PACE case whose reference is the upstream change between two releases. The release that
*is* the answer sits in the same cache as the base; the agent's workspace must be the first release
only -- no file, name or line of the second release, no case files, no reference -- and whatever the
agent leaves is scored against the frozen contract (a workspace it "fills" with a made-up `scale` that
does not do the job earns nothing for it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reqbench.cli.generic_run import run_suite
from reqbench.core.agents.base import AgentInputs, AgentResult, AgentStatus, Budget
from reqbench.core.execute.types import RunOptions
from reqbench.protocols.pace.case import freeze_case
from tests.protocols.pace.fake_releases import V10, V11, fake_releases, upstream_case

SEEN: dict[str, Any] = {}


class _Snoop:
    """Records everything in its workspace and inputs, then writes a stub `scale` that does nothing."""

    name = "snoop"

    def run(self, workspace: Path, inputs: AgentInputs, budget: Budget) -> AgentResult:
        files = {str(p.relative_to(workspace)): p.read_text(errors="replace")
                 for p in workspace.rglob("*") if p.is_file()}
        SEEN.update(files=files, inputs=sorted(inputs.files))
        init = workspace / "toylib" / "__init__.py"
        init.write_text(init.read_text() + "\n\ndef scale(values, factor):\n    pass\n")
        return AgentResult(AgentStatus.COMPLETED)


def make_snoop(**_options: Any) -> _Snoop:
    return _Snoop()


def test_agent_sees_release_a_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REQBENCH_CACHE", str(tmp_path / "cache"))
    case = upstream_case(tmp_path / "case", fake_releases(tmp_path / "cache"))
    freeze_case(case)
    store, loaded = run_suite(case, RunOptions(agent=f"{__name__}:make_snoop"), tmp_path / "run",
                              resume=False, quiet=True)
    files = SEEN["files"]
    assert SEEN["inputs"] == ["prd"]
    assert files["toylib/__init__.py"] == V10["toylib/__init__.py"]
    assert sorted(files) == ["README.rst", "prd/prd.md", "toylib/__init__.py"]
    assert files["prd/prd.md"] == (case / "prd.md").read_text()  # the PRD names the feature; nothing else
    text = "\n".join(v for k, v in files.items() if k != "prd/prd.md")
    for leak in ("pypi-diff", "sha256", "CP01", "stats", "factor", V11["README.rst"].splitlines()[-1]):
        assert leak not in text, leak
    with store:
        outcome = next(o for _row, o in store.outcomes())
    assert outcome.result.verdicts["CP01"] == "Missing"  # a stub named scale is not the behaviour
    assert outcome.result.score == 0.0
