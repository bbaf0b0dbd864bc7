"""The bundled takeover suite: initial repositories follow the timeline; the suite file is checked."""

from pathlib import Path

import pytest

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.protocols.takeover.delivery.initial import initial_patches
from reqbench.protocols.takeover.suite_file import load_suite

EXAMPLE = bundled_suite("takeover")


def test_initial_repository_includes_exactly_the_work_before_the_request():
    suite = load_suite(EXAMPLE)
    # T003 is at message 38: timeline work at 21, 29, 35 and the references of T001 (24), T002 (30).
    assert initial_patches(EXAMPLE, suite, "DOCKSIDE_T003") == [
        "timeline/021-csv-export-and-team-suite.patch", "targets/T001/reference.patch",
        "timeline/029-per-line-vat-rounding.patch", "targets/T002/reference.patch",
        "timeline/035-meeting-room-overage.patch"]
    assert initial_patches(EXAMPLE, suite, "DOCKSIDE_T001") == ["timeline/021-csv-export-and-team-suite.patch"]


def test_suite_file_with_missing_patch_names_file_and_item(tmp_path: Path):
    text = (EXAMPLE / "suite.yaml").read_text().replace("targets/T002/reference.patch", "targets/T002/nope.patch")
    (tmp_path / "suite.yaml").write_text(text)
    for name in ("project", "repo", "timeline", "targets"):
        (tmp_path / name).symlink_to(EXAMPLE / name)
    with pytest.raises(InputError) as err:
        load_suite(tmp_path)
    assert "suite.yaml" in str(err.value) and "DOCKSIDE_T002" in str(err.value) and "nope.patch" in str(err.value)


def test_unknown_suite_key_is_rejected(tmp_path: Path):
    (tmp_path / "suite.yaml").write_text("protocol: takeover\nname: x\nbogus: 1\n")
    with pytest.raises(InputError) as err:
        load_suite(tmp_path)
    assert "bogus" in str(err.value)
