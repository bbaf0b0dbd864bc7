"""`reqbench env build|list|show|prune|shell` and `reqbench schema environment`, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.generic_helpers import reqbench
from tests.core.environments.imagekit import BASE, UPPER, docker_save, layer_tar
from tests.security.conftest import require_bwrap  # noqa: F401 - shared fixture


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    (suite / "tasks").mkdir(parents=True)
    docker_save(suite / "tasks" / "image.tar", [layer_tar(BASE), layer_tar(UPPER)])
    (suite / "tasks" / "t1.yaml").write_text("id: t1\nenvironment:\n  image:\n    archive: image.tar\n")
    (suite / "tasks" / "t2.yaml").write_text("id: t2\nenvironment:\n  image:\n    archive: image.tar\n")
    return suite


@pytest.mark.usefixtures("require_bwrap")
def test_build_list_show_prune(tmp_path: Path) -> None:
    suite, cache = _suite(tmp_path), str(tmp_path / "cache")
    built = reqbench("env", "build", str(suite), "--cache", cache, "--json")
    assert built.returncode == 0, built.stderr
    rows = json.loads(built.stdout)
    assert len(rows) == 1, "the same block in two task files is one environment"
    key = rows[0]["key"]
    listed = json.loads(reqbench("env", "list", "--cache", cache, "--json").stdout)
    assert [r["key"] for r in listed] == [key] and listed[0]["kinds"] == "image"
    shown = json.loads(reqbench("env", "show", key[:8], "--cache", cache).stdout)
    assert shown["root"] == "root" and shown["path"].endswith(key)
    no_shell = reqbench("env", "shell", str(suite / "tasks" / "t1.yaml"), "--cache", cache, "-c", "true")
    assert no_shell.returncode == 2 and "has no /bin/sh" in no_shell.stderr
    pruned = reqbench("env", "prune", "--all", "--cache", cache)
    assert pruned.returncode == 0 and "removed 1 environment" in pruned.stdout
    assert json.loads(reqbench("env", "list", "--cache", cache, "--json").stdout) == []


def test_bad_block_is_one_error_exit_2(tmp_path: Path) -> None:
    (tmp_path / "environment.yaml").write_text("python:\n  installer: conda\n")
    done = reqbench("env", "build", "--environment", str(tmp_path / "environment.yaml"), "--cache", str(tmp_path))
    assert done.returncode == 2
    assert f"{tmp_path / 'environment.yaml'}: environment.python.installer:" in done.stderr


def test_docker_name_without_any_engine_says_so_in_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "environment.yaml").write_text("image:\n  docker: python:3.12-slim\n")
    done = reqbench("env", "build", "--environment", str(tmp_path / "environment.yaml"), "--cache", str(tmp_path),
                    PATH="/nonexistent")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0
    assert f"{tmp_path / 'environment.yaml'}: environment.image.docker:" in done.stderr
    assert "needs docker or podman to make an image archive and none is installed" in done.stderr


def test_schema_environment_is_registered() -> None:
    done = reqbench("schema", "environment")
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    assert set(schema["properties"]) == {"python", "node", "debian", "image", "setup"}


@pytest.mark.usefixtures("require_bwrap")
def test_shell_runs_in_the_environment_with_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "environment.yaml").write_text("setup:\n  - echo tool > /opt/reqbench-env/local/marker\n")
    (tmp_path / "ws").mkdir()
    done = reqbench("env", "shell", str(tmp_path / "environment.yaml"), "--cache", str(tmp_path / "cache"),
                    "--workspace", str(tmp_path / "ws"),
                    "-c", "cat /opt/reqbench-env/local/marker > out; echo x > /opt/reqbench-env/local/marker")
    assert done.returncode != 0, "the environment is writable from the shell"
    assert (tmp_path / "ws" / "out").read_text() == "tool\n"
