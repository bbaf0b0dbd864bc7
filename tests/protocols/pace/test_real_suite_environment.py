"""The real pace case that brings its own environment (`suites/real/pace/tenacity-async-strategies`):
tenacity's own tests import tornado and typeguard, which reqbench does not install. The case's
`environment:` is what the agent's steps run in; scoring reads the candidate's code and runs nothing, so
the need shows in the project's tests: on the reference tree they pass in the case's environment, and without it the tornado
module fails to import with a sentence naming it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reqbench.core.checks import Check, CheckStatus, run_check
from reqbench.core.execute.environments import task_checks
from reqbench.protocols.pace import repo
from reqbench.protocols.pace.case import load_case
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

CASE = Path(__file__).resolve().parents[3] / "suites" / "real" / "pace" / "tenacity-async-strategies"
TESTS = Check(name="tenacity-tests", command="{pytest} -q -p no:cacheprovider tests", timeout_seconds=300)


@pytest.fixture
def reference_tree(pypi_cache: Path, tmp_path: Path) -> Path:  # noqa: F811
    need_release("tenacity==8.2.3", "tenacity==8.3.0")
    case = load_case(CASE)
    base = repo.base_tree(case.spec.base, case.dir, case.spec.base_sha256)
    return repo.candidate_tree(base, case.reference_patch, tmp_path / "reference")


@pytest.mark.slow
def test_the_projects_tests_pass_in_the_case_environment(reference_tree: Path, tmp_path: Path) -> None:
    case = load_case(CASE)
    assert case.spec.environment is not None
    with task_checks(case.spec.environment, str(CASE / "case.yaml"), CASE):
        result = run_check(TESTS, reference_tree, None)
    assert result.status is CheckStatus.PASS, result.stdout_tail[-1500:]


@pytest.mark.slow
def test_without_it_tornado_is_missing_by_name(reference_tree: Path, tmp_path: Path) -> None:
    result = run_check(TESTS, reference_tree, None)
    assert result.status is not CheckStatus.PASS
    assert "No module named 'tornado'" in result.stdout_tail + result.stderr_tail


JS_CASE = CASE.parent / "semver-release-tags"
NODE_TESTS = Check(name="node-tests", command="node --test test/", timeout_seconds=120)


@pytest.mark.slow
def test_the_javascript_case_tests_run_on_npm_packages_only_in_its_environment(pypi_cache: Path,  # noqa: F811
                                                                               tmp_path: Path) -> None:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are not installed")
    case = load_case(JS_CASE)
    assert case.spec.environment == {"node": {"package_json": "base"}}
    reference = repo.candidate_tree(repo.base_tree(case.spec.base, case.dir), case.reference_patch,
                                    tmp_path / "reference")
    with task_checks(case.spec.environment, str(JS_CASE / "case.yaml"), JS_CASE):
        inside = run_check(NODE_TESTS, reference, None)
    assert inside.status is CheckStatus.PASS, inside.stdout_tail[-1500:]
    assert "# pass 4" in inside.stdout_tail and "# fail 0" in inside.stdout_tail
    outside = run_check(NODE_TESTS, reference, None)
    assert outside.status is not CheckStatus.PASS
    assert "Cannot find module 'semver'" in outside.stdout_tail + outside.stderr_tail
