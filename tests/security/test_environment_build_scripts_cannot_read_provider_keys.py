"""Threat: a suite's environment installs third-party code whose install-time scripts run on the host while
the environment is built (an npm package's ``postinstall``, an sdist's ``setup.py``). Those scripts must not
see the harness's model-provider keys; the package tools' own settings (an index, a registry login) still
reach them, since an install needs them.

Each test builds a real environment with a real build tool; the script dumps every variable it sees into a
file outside the build, and the test reads that dump."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from reqbench.core.environments import ensure_built, load_environment
from reqbench.core.environments.layers import build_tool_environment

CANARIES = {"OPENAI_API_KEY": "sk-canary-openai-0000000000000000", "ANTHROPIC_API_KEY": "sk-ant-canary-0000000000",
            "REQBENCH_API_KEY": "canary-reqbench", "GITHUB_TOKEN": "ghp_canary000000000000000000000"}
KEPT = {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "NPM_TOKEN": "registry-login", "UV_INDEX_PASSWORD": "index-login"}


@pytest.fixture
def canaries(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**CANARIES, **KEPT}.items():
        monkeypatch.setenv(name, value)


def _assert_scrubbed(dump: Path) -> None:
    seen = json.loads(dump.read_text())
    assert not set(CANARIES) & set(seen), f"a build script saw {sorted(set(CANARIES) & set(seen))}"
    assert not any(value in json.dumps(seen) for value in CANARIES.values())
    assert {name: seen.get(name) for name in KEPT} == KEPT  # the package tools' own settings still pass


def test_npm_install_scripts_see_no_provider_key(tmp_path: Path, canaries: None) -> None:
    if shutil.which("npm") is None or shutil.which("node") is None:
        pytest.skip("node and npm are not installed")
    dump = tmp_path / "seen.json"
    script = f"node -e \"require('fs').writeFileSync('{dump}', JSON.stringify(process.env))\""
    package = {"name": "t", "version": "1.0.0", "private": True, "scripts": {"postinstall": script}}
    lock = {"name": "t", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
            "packages": {"": {"name": "t", "version": "1.0.0"}}}
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "package.json").write_text(json.dumps(package))
    (tmp_path / "web" / "package-lock.json").write_text(json.dumps(lock))
    spec = load_environment({"node": {"package_json": "web"}}, origin="task.yaml", base_dir=tmp_path)
    ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    assert dump.is_file(), "the postinstall script did not run: the test proves nothing"
    _assert_scrubbed(dump)


def test_sdist_build_backend_sees_no_provider_key(tmp_path: Path, canaries: None) -> None:
    dump = tmp_path / "seen.json"
    project = tmp_path / "canarypkg"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
        '[project]\nname = "canarypkg"\nversion = "0.1"\n')
    (project / "setup.py").write_text(
        f"import json, os\nfrom setuptools import setup\nopen({str(dump)!r}, 'w').write(json.dumps(dict(os.environ)))\n"
        "setup(py_modules=[])\n")
    spec = load_environment({"python": {"interpreter": "host", "requirements": [str(project)]}}, origin="task.yaml",
                            base_dir=tmp_path)
    try:
        ensure_built(spec, tmp_path, cache=tmp_path / "cache")
    except Exception as exc:  # noqa: BLE001 - setuptools comes from the package index
        if not dump.is_file():
            pytest.skip(f"cannot build the test package here (no package index?): {exc}")
        raise
    assert dump.is_file(), "the build backend did not run: the test proves nothing"
    _assert_scrubbed(dump)


def test_scrub_keeps_the_package_tools_settings_and_proxies() -> None:
    env = build_tool_environment({"HOME": "/root", "PATH": "/usr/bin", "https_proxy": "http://proxy:3128",
                                  "OPENAI_API_KEY": "x", "SSH_AUTH_SOCK": "/tmp/agent", "AWS_SECRET_ACCESS_KEY": "y",
                                  "npm_config__authToken": "z", "UV_INDEX_PASSWORD": "w", "PIP_INDEX_URL": "u"})
    assert env == {"HOME": "/root", "PATH": "/usr/bin", "https_proxy": "http://proxy:3128",
                   "npm_config__authToken": "z", "UV_INDEX_PASSWORD": "w", "PIP_INDEX_URL": "u"}
