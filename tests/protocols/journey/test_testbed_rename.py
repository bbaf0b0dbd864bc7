"""``environment`` means one thing in every task file: a journey instance's test settings are ``testbed:``;
an instance written before keeps loading (its ``environment:`` block with a test command is read as the
testbed, with one notice), and ``environment:`` now holds a task environment block, validated at load."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from reqbench.core.errors import InputError
from reqbench.protocols.journey.models import load_instance
from tests.protocols.journey.conftest import SPEC, build_instance


def test_an_old_instance_file_loads_with_one_notice(tmp_path: Path) -> None:
    old = copy.deepcopy(SPEC)
    old["environment"] = old.pop("testbed")
    inst = build_instance(tmp_path, old)
    with pytest.warns(UserWarning, match="now called 'testbed:'") as caught:
        loaded = load_instance(inst)
    assert len(caught) == 1
    assert loaded.spec.testbed.test_command.startswith("{pytest}") and loaded.spec.environment is None


def test_the_environment_block_is_validated_naming_the_file(tmp_path: Path) -> None:
    spec = copy.deepcopy(SPEC)
    spec["environment"] = {"python": {"interpreter": "python2"}}
    inst = build_instance(tmp_path, spec)
    with pytest.raises(InputError) as err:
        load_instance(inst)
    assert "instance.yaml" in str(err.value) and "environment" in str(err.value)


def test_a_new_instance_keeps_its_calibration_fingerprint(tmp_path: Path) -> None:
    """The rename changes no recorded fingerprint (the spec is hashed under its historic names)."""
    new = load_instance(build_instance(tmp_path / "new", SPEC))
    old_spec = copy.deepcopy(SPEC)
    old_spec["environment"] = old_spec.pop("testbed")
    (tmp_path / "old").mkdir()
    with pytest.warns(UserWarning):
        old = load_instance(build_instance(tmp_path / "old", old_spec))
    assert new.content_hash == old.content_hash and new.test_env_hash == old.test_env_hash
    dumped = yaml.safe_dump(SPEC)
    assert "testbed" in dumped
