"""Red team: an agent that fills its workspace with hostile content must not turn its failure into
attrition. Each test runs a real ``command`` agent (a shell script, sandboxed) whose script creates one
threat, through the protocol's own `run_row`, and checks the row is final: scored, never pending or
invalid, with the agent-failure reason recorded when the workspace is rejected.

Threats: a non-UTF-8 file name, Latin-1 content, a 1,100-level directory tree, symlink loops and links
out of the workspace (``/etc/shadow``), a FIFO (reading it would block forever), chmod-000 entries, a 2 GiB
(sparse) file, and more files than the workspace limit allows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.execute.suite import RowContext
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.workspace import remove_tree

pytestmark = [pytest.mark.timeout(240),
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")]

REPO = Path(__file__).resolve().parents[2]

NON_UTF8_NAME = "printf 'x = 1\\n' > \"$(printf 'n\\377me.py')\""
LATIN1 = "printf 'caf\\351 au lait\\n' > latin1.txt"
DEEP_TREE = "mkdir -p \"$(printf 'd/%.0s' $(seq 1100))\""
SYMLINKS = "ln -s /etc/shadow shadow; ln -s loop_b loop_a; ln -s loop_a loop_b; ln -s .. up"
FIFO = "mkfifo pipe; echo data > real.txt"
CHMOD_000 = "echo x > locked; chmod 000 locked; mkdir cell; echo y > cell/f; chmod 000 cell"
HUGE_FILE = "truncate -s 2G huge.bin"
MANY_FILES = "mkdir many && cd many && seq 1 100050 | xargs touch"


@pytest.fixture
def cleanup(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Deep trees outlive a failing test; pytest's own cleanup would recurse on them."""
    yield
    remove_tree(tmp_path)


def _options(script: str, **agent_options: str) -> RunOptions:
    return RunOptions(agent="command", agent_options={"template": script, **agent_options})


def _final(out: RowOutcome) -> RowOutcome:
    assert out.status is RowStatus.SCORED, (out.status, out.detail[-2000:])
    json.dumps(out.result.stored())  # storable as it is
    return out


# -- specpath -----------------------------------------------------------------------------------------

def _specpath(tmp_path: Path, script: str) -> RowOutcome:
    from reqbench.protocols.specpath.suite import PROTOCOL
    from tests.protocols.specpath.conftest import build_tally_family

    fam = build_tally_family(tmp_path / "families")
    return _final(PROTOCOL.load(fam).run_row(Row("tally", "direct", "command", 0), RowContext(
        _options(script, **{"specpath.agent_timeout": "120"}), tmp_path / "work")))


def test_specpath_non_utf8_name_is_scored_not_invalid(tmp_path: Path) -> None:
    out = _specpath(tmp_path, NON_UTF8_NAME)
    assert out.result.outcome == "failure" and out.result.reason == "checks_failed"
    assert b'"b/n\\377me.py"' in out.artifacts["patch"]


def test_specpath_latin1_content_is_scored_not_invalid(tmp_path: Path) -> None:
    out = _specpath(tmp_path, LATIN1)
    assert out.result.reason == "checks_failed"
    assert b"GIT binary patch" in out.artifacts["patch"]


def test_specpath_deep_tree_is_agent_failure(tmp_path: Path, cleanup: None) -> None:
    out = _specpath(tmp_path, DEEP_TREE)
    assert (out.result.outcome, out.result.reason) == ("failure", "workspace_over_limit")
    assert out.result.workspace_rejected["limit"] == "max_depth"
    assert "deeper than 64" in out.detail


def test_specpath_symlink_out_of_workspace_records_the_link_not_the_target(tmp_path: Path) -> None:
    out = _specpath(tmp_path, SYMLINKS)
    patch = out.artifacts["patch"]
    assert out.result.reason == "checks_failed"
    assert b"+/etc/shadow" in patch and b"root:" not in patch


def test_specpath_fifo_in_workspace_does_not_hang(tmp_path: Path) -> None:
    out = _specpath(tmp_path, FIFO)
    assert out.result.reason == "checks_failed"
    assert out.result.skipped == ["'pipe' (fifo)"]


def test_specpath_chmod_000_entries_are_scored_not_invalid(tmp_path: Path) -> None:
    out = _specpath(tmp_path, CHMOD_000)
    assert out.result.reason == "checks_failed"
    assert b"b/locked" in out.artifacts["patch"] and b"b/cell/f" in out.artifacts["patch"]


def test_specpath_huge_file_is_agent_failure(tmp_path: Path) -> None:
    out = _specpath(tmp_path, HUGE_FILE)
    assert out.result.reason == "workspace_over_limit"
    assert out.result.workspace_rejected["limit"] == "max_file_bytes"


def test_specpath_too_many_files_is_agent_failure(tmp_path: Path) -> None:
    out = _specpath(tmp_path, MANY_FILES)
    assert out.result.reason == "workspace_over_limit"
    assert out.result.workspace_rejected["limit"] == "max_entries"


# -- takeover -----------------------------------------------------------------------------------------

def _takeover(tmp_path: Path, script: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    from reqbench.protocols.takeover.suite import PROTOCOL
    from tests.protocols.takeover.takeover_suite_factory import mini_suite

    shared = tmp_path.parent.parent / "takeover-shared-cache"  # reused admission verdicts, as in tests/
    shared.mkdir(exist_ok=True)
    monkeypatch.setenv("REQBENCH_CACHE", str(shared))
    suite = mini_suite(tmp_path / "suite", ("T001",))
    coding_only = f'[ "$STAGE" = coding ] || exit 0; {script}'
    options = RunOptions(agent="command", conditions=("C1",),
                         agent_options={"template": "STAGE={stage}; " + coding_only})
    loaded = PROTOCOL.load(suite)
    row = loaded.plan(options)[0]
    return _final(loaded.run_row(row, RowContext(options, tmp_path / "work"))).result.stored()


def test_takeover_deep_tree_is_agent_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             cleanup: None) -> None:
    delivery = _takeover(tmp_path, DEEP_TREE, monkeypatch)["delivery"]
    assert delivery["decision"] == "agent_failure"
    assert delivery["reason"].startswith("workspace rejected: workspace nests directories deeper than 64")


def test_takeover_huge_file_is_agent_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    delivery = _takeover(tmp_path, HUGE_FILE, monkeypatch)["delivery"]
    assert delivery["decision"] == "agent_failure" and "huge.bin" in delivery["reason"]


def test_takeover_non_utf8_name_and_fifo_are_scored_not_invalid(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    result = _takeover(tmp_path, f"{NON_UTF8_NAME}; {FIFO}; {LATIN1}; {SYMLINKS}", monkeypatch)
    assert result["delivery"]["decision"] in ("pass", "fail")
    patch = result["submission"]["patch"]
    assert '"b/n\\377me.py"' in patch and "+/etc/shadow" in patch and "pipe" not in patch


# -- journey ------------------------------------------------------------------------------------------

def _journey(tmp_path: Path, script: str) -> RowOutcome:
    from reqbench.core.bundled import bundled_suite
    from reqbench.protocols.journey.suite import PROTOCOL

    EXAMPLES = bundled_suite("journey")  # noqa: N806

    return _final(PROTOCOL.load(EXAMPLES).run_row(Row("tasklet", "single-shot", "command", 0),
                                                  RowContext(_options(script), tmp_path / "work")))


def test_journey_fifo_in_workspace_does_not_hang(tmp_path: Path) -> None:
    out = _journey(tmp_path, FIFO)
    assert out.result.trace[0]["changed_files"] == ["real.txt"]
    assert "workspace_rejected" not in out.result.trace[0]


def test_journey_deep_tree_is_agent_failure(tmp_path: Path, cleanup: None) -> None:
    out = _journey(tmp_path, f"echo changed > NOTES.md; {DEEP_TREE}")
    turn = out.result.trace[0]
    assert turn["changed_files"] == [] and out.artifacts["turn_001.diff"] == b""
    assert "deeper than 64" in turn["workspace_rejected"]


def test_journey_huge_file_is_agent_failure(tmp_path: Path) -> None:
    out = _journey(tmp_path, HUGE_FILE)
    assert "huge.bin" in out.result.trace[0]["workspace_rejected"]


def test_journey_non_utf8_name_is_scored_not_invalid(tmp_path: Path) -> None:
    out = _journey(tmp_path, f"{NON_UTF8_NAME}; {LATIN1}; {CHMOD_000}")
    assert out.artifacts["final.diff"].decode("utf-8")  # UTF-8 text, byte-exact via binary patches
    assert "workspace_rejected" not in out.result.trace[0]


# -- pace ---------------------------------------------------------------------------------------------

def _pace(tmp_path: Path, script: str) -> RowOutcome:
    from reqbench.protocols.pace.suite import PaceProtocol

    suite = bundled_suite("pace")
    return _final(PaceProtocol().load(suite).run_row(Row("billflow-credit-notes", "prd", "command", 0),
                                                     RowContext(_options(script), tmp_path / "work")))


def test_pace_huge_file_is_agent_failure(tmp_path: Path) -> None:
    out = _pace(tmp_path, HUGE_FILE)
    empty = _pace(tmp_path / "empty", "true")
    assert "huge.bin" in out.result.workspace_rejected
    assert out.result.score == empty.result.score
    assert out.artifacts["patch"] == b""


def test_pace_deep_tree_is_agent_failure(tmp_path: Path, cleanup: None) -> None:
    out = _pace(tmp_path, DEEP_TREE)
    assert "deeper than 64" in out.result.workspace_rejected


def test_pace_fifo_and_non_utf8_name_are_scored_not_invalid(tmp_path: Path) -> None:
    out = _pace(tmp_path, f"{FIFO}; {NON_UTF8_NAME}; {SYMLINKS}")
    assert out.result.workspace_rejected is None
    assert b"+/etc/shadow" in out.artifacts["patch"]
