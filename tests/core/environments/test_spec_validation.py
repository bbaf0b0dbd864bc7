"""The environment block: every mistake is one `InputError` naming the file, the item and the rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.environments import EnvironmentSpec, load_environment
from reqbench.core.errors import InputError


@pytest.mark.parametrize("data, item, rule", [
    ({"pyhton": {}}, "environment", "unknown key 'pyhton'; did you mean 'python'?"),
    ({"python": {"interpreter": "py3"}}, "environment.python", "interpreter 'py3' must be"),
    ({"python": {"installer": "conda"}}, "environment.python.installer", "'uv' or 'pip'"),
    ({"python": {"extras": ["dev"]}}, "environment.python", "extras need install_project"),
    ({"python": {"interpreter": "root"}}, "environment", "needs a debian or image root"),
    ({"debian": {}, "image": {"archive": "x.tar"}}, "environment", "choose one"),
    ({"image": {}}, "environment.image", "exactly one of archive, docker, dockerfile"),
    ({"image": {"archive": "a.tar", "docker": "x"}}, "environment.image", "(got archive, docker)"),
    ({"debian": {"packages": ["ok", "Bad Name"]}}, "environment.debian", "'Bad Name' is not a Debian package"),
    ({}, "environment", "at least one of"),
    ({"setup": ["  "]}, "environment", "must not be empty"),
    ({"node": {}}, "environment.node", "missing required key 'package_json'"),
])
def test_bad_blocks_name_file_item_and_rule(tmp_path: Path, data: dict[str, object], item: str, rule: str) -> None:
    with pytest.raises(InputError) as caught:
        load_environment(data, origin="tasks/t1.yaml", base_dir=tmp_path)
    assert caught.value.file == "tasks/t1.yaml"
    assert caught.value.item == item
    assert rule in caught.value.rule


def test_named_files_must_exist_and_stay_in_the_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError) as caught:
        load_environment({"python": {"requirements_file": "req.txt"}}, origin="t.yaml", base_dir=tmp_path)
    assert caught.value.item == "environment.python.requirements_file" and "does not exist" in caught.value.rule
    (tmp_path.parent / "outside.txt").write_text("x\n")
    with pytest.raises(InputError, match="leaves the folder"):
        load_environment({"python": {"lock": "../outside.txt"}}, origin="t.yaml", base_dir=tmp_path)


def test_a_combined_block_validates(tmp_path: Path) -> None:
    (tmp_path / "web").mkdir()
    for name in ("package.json", "package-lock.json"):
        (tmp_path / "web" / name).write_text("{}")
    spec = load_environment({"debian": {"packages": ["python3", "python3-venv"]},
                             "python": {"interpreter": "root", "requirements": ["tomli-w"]},
                             "node": {"package_json": "web"}, "setup": ["true"]},
                            origin="t.yaml", base_dir=tmp_path)
    assert spec.root_kind == "debian"
    assert "description" in EnvironmentSpec.model_json_schema()["properties"]["setup"]
