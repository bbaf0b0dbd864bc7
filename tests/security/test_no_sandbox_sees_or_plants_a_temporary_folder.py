"""Red team: an agent can neither see the harness's temporary folders nor plant one named like them.

A temporary folder's owner is its name (`core.tempdirs`), which is safe only where no agent sees or writes:
every sandbox has a private ``/tmp`` and ``/dev/shm``, and only its workspace is bound in at its own path
(a run's scratch folder, whose path it therefore learns, shows nothing but that path).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from reqbench.core import tempdirs
from reqbench.core.sandbox import run_sandboxed

pytestmark = pytest.mark.usefixtures("require_bwrap")


def test_no_sandbox_sees_a_temporary_folder_or_plants_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner is the folder's name, and a name is safe only where no agent sees or writes: a step whose
    workspace lies in a run's scratch lists nothing of the harness's temporary folders, and what it makes
    next to its workspace or in the temporary folder's path stays inside its own sandbox."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    git, guard = tempdirs.make("git"), tempdirs.make("guard")
    run = tempdirs.keyed("run", "0123456789abcdef", tmp_path / "shm")
    workspace = run / "attempt" / "workspace"
    workspace.mkdir(parents=True)
    forged = f"reqbench-git-{tempdirs.Owner(1, 1, tempdirs.this_process().pidns).stamp}-forged"
    script = (f"ls -a /tmp /dev/shm {tmp_path / 'tmp'} {tmp_path / 'shm'} {run} {run / 'attempt'} 2>&1; "
              f"mkdir -p {tmp_path / 'tmp' / forged} {tmp_path / 'shm' / forged} {run / 'planted'}; echo done")
    result = run_sandboxed(script, workspace, timeout=60)
    seen = result.stdout.decode()
    assert result.exit_code == 0 and seen.rstrip().endswith("done"), result.stderr
    assert git.name not in seen and guard.name not in seen  # the temporary folder is not in its view
    assert sorted(p.name for p in (tmp_path / "tmp").iterdir()) == sorted([git.name, guard.name])
    assert [p.name for p in (tmp_path / "shm").iterdir()] == [run.name] and not (run / "planted").exists()
