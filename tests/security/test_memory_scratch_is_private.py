"""Rows' scratch in ``/dev/shm`` (`core.execute.scratch`) is invisible to every sandboxed step.

Threat: with attempt folders in the host's shared memory folder, an agent reads another row's (or
another run's) workspace, check tree or hidden tests there, or plants files for them. Defence: each
sandbox has a private ``/dev/shm``; only its own workspace is bound in; the base folder is 0700. The
harness side of the test reads the secret it planted, the sandboxed step must not.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from reqbench.core.execute.scratch import run_scratch, scratch_base
from reqbench.core.sandbox import available_isolation, run_sandboxed
from tests.security.test_memory_cap import CAP, cap_mode


def test_a_sandboxed_step_sees_neither_the_host_shm_nor_other_rows_scratch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REQBENCH_SCRATCH", raising=False)
    if available_isolation() != "bwrap":
        pytest.skip("needs bubblewrap (the private /dev/shm is part of its view)")
    base = scratch_base()
    if base is None or not str(base).startswith("/dev/shm/"):
        pytest.skip("no memory-backed scratch on this machine (/dev/shm missing, not tmpfs or too small)")
    folder = run_scratch(tmp_path / "run")
    mine, other = folder / "aaaaaaaaaaaaaaaa-00000000" / "agent", folder / "bbbbbbbbbbbbbbbb-00000000" / "verify"
    try:
        mine.mkdir(parents=True)
        other.mkdir(parents=True)
        secret = other / "hidden_answer.py"
        secret.write_text("ANSWER = 'secret-of-another-row'\n")
        (folder / "cccccccccccccccc-00000000").mkdir()  # and a third row's folder, empty
        command = (f"ls -a /dev/shm; cat {secret}; ls {folder} {base}; "
                   f"echo planted > {other}/planted.py; echo ok")
        result = run_sandboxed(command, mine, timeout=60, network=False)
        out = result.stdout_tail()
        assert out.endswith("ok\n")  # the command ran to its end
        # only the mount points of its own workspace exist in its private /dev/shm
        assert "secret-of-another-row" not in out and "bbbbbbbbbbbbbbbb" not in out and "cccc" not in out
        assert "aaaaaaaaaaaaaaaa-00000000" in out
        assert not (other / "planted.py").exists() and secret.read_text().startswith("ANSWER")
        assert (os.stat(base).st_mode & 0o777) == 0o700
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_files_written_into_a_workspace_in_memory_count_toward_the_writer_s_cap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An agent filling its (memory-backed) workspace cannot take more of the host's memory than its cap."""
    monkeypatch.delenv("REQBENCH_SCRATCH", raising=False)
    base = scratch_base()
    if base is None or not str(base).startswith("/dev/shm/") or cap_mode() != "cgroup":
        pytest.skip("needs memory-backed scratch and a writable memory cgroup")
    workspace = run_scratch(tmp_path / "run") / "dddddddddddddddd-00000000" / "agent"
    try:
        workspace.mkdir(parents=True)
        result = run_sandboxed("head -c 600000000 /dev/zero > fill; echo rc=$?", workspace, timeout=120,
                               memory_bytes=CAP)
        assert result.oom_killed, result
        assert (workspace / "fill").stat().st_size <= CAP
    finally:
        shutil.rmtree(workspace.parent.parent, ignore_errors=True)
