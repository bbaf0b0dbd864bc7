"""The one launcher (`run_sandboxed` = plan -> spawn -> collect) keeps the sandbox's promises however its
options arrive: as a `SandboxOptions` object, as keywords, or both."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.sandbox import SandboxOptions, run_sandboxed

pytestmark = pytest.mark.usefixtures("require_bwrap")


def test_a_preset_stdin_file_is_readable_but_its_folder_of_answers_is_not(tmp_path: Path) -> None:
    private = tmp_path / "scratch"
    private.mkdir()
    (private / "prompt.md").write_text("the task\n")
    (private / "gold.json").write_text('{"answer": 42}\n')
    ws = tmp_path / "ws"
    ws.mkdir()
    # the agent finds the folder of its prompt and looks for the answers next to it
    res = run_sandboxed(["sh", "-c", 'cat; cat "$1/gold.json" || echo NO-GOLD', "sh", str(private)], ws,
                        timeout=30, stdin_file=private / "prompt.md", bind_named_files=True)
    out = res.stdout_text()
    assert res.exit_code == 0, res.stderr_text()
    assert "the task" in out and "NO-GOLD" in out and "42" not in out


def test_keywords_cannot_be_used_to_widen_an_options_object_silently(tmp_path: Path) -> None:
    """An unknown option is an error, never ignored; a hidden folder stays hidden when the options are an
    object, and a keyword given next to it replaces that field only."""
    suite = tmp_path / "suite"
    (suite / "hidden").mkdir(parents=True)
    (suite / "hidden" / "test_answer.py").write_text("ANSWER = 42\n")
    ws = suite / "ws"
    ws.mkdir()
    opts = SandboxOptions(timeout=30, hide=[suite])
    res = run_sandboxed(f"ls {suite}/hidden; echo done", ws, opts, env={"X": "1"})
    assert res.exit_code == 0 and "test_answer.py" not in res.stdout_text() and "done" in res.stdout_text()
    with pytest.raises(TypeError):
        run_sandboxed("true", ws, opts, unmask_everything=True)


def test_output_kept_in_a_file_is_capped_before_the_harness_reads_it(tmp_path: Path) -> None:
    res = run_sandboxed("head -c 300000 /dev/zero | tr '\\0' x", tmp_path, timeout=30,
                        stdout_path=tmp_path / "out.txt", output_cap_bytes=1000)
    assert res.truncated and len(res.stdout_text()) == 1000 and (tmp_path / "out.txt").stat().st_size == 1000
