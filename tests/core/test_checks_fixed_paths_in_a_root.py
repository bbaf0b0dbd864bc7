"""A check's fixed paths (a container's ``/tests``, ``/logs/verifier``, its working directory) in a task
environment with a root: at the top level the sandbox makes the mount point; below a folder of the root
(bound read-only) the folder must be there, else one error naming the path before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.checks import FixedPaths
from reqbench.core.errors import InputError
from reqbench.core.sandbox.environment import EnvironmentMount
from tests.security.conftest import require_bwrap  # noqa: F401 - shared fixture

pytestmark = pytest.mark.usefixtures("require_bwrap")


def _mount(root: Path) -> EnvironmentMount:
    for folder in ("usr", "srv", "opt/made"):
        (root / folder).mkdir(parents=True)
    return EnvironmentMount("e" * 64, root)


def test_top_level_and_existing_folders_bind(tmp_path: Path) -> None:
    mount = _mount(tmp_path / "root")
    at = FixedPaths(hidden="/tests", output="/logs/verifier", workspace="/opt/made")
    readonly, writable = at.binds(tmp_path / "tests", tmp_path / "out", tmp_path / "snap", mount)
    assert readonly == {tmp_path / "tests": Path("/tests")}
    assert writable == {tmp_path / "out": Path("/logs/verifier"), tmp_path / "snap": Path("/opt/made")}
    FixedPaths(workspace="/app").binds(None, tmp_path / "out", tmp_path / "snap", mount)
    FixedPaths(workspace="/srv/app").binds(None, tmp_path / "out", tmp_path / "snap", None)  # the host's


def test_a_path_below_a_folder_of_the_root_that_lacks_it_is_named(tmp_path: Path) -> None:
    mount = _mount(tmp_path / "root")
    with pytest.raises(InputError, match=r"environment eeeeeeeeeeee: the environment's root has no folder "
                                         r"/srv/app to bind it on"):
        FixedPaths(hidden="/tests", workspace="/srv/app").binds(tmp_path, tmp_path / "out", tmp_path / "s", mount)
