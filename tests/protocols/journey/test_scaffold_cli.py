"""`reqbench journey scaffold` as a user runs it (real subprocesses): a local src/-layout project's
releases become an instance that `reqbench journey calibrate` accepts; the same on real PyPI releases
(skipped when PyPI is unreachable)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

from .scaffold_fixture import F2P, P2P, write_releases


def _reqbench(*args: str, cache: Path, group: tuple[str, ...] = ("journey",)) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REQBENCH_CACHE": str(cache), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", *group, *args], capture_output=True,
                          text=True, env=env, check=False, timeout=600)


def test_scaffold_local_releases_then_calibrate(tmp_path: Path) -> None:
    trees = write_releases(tmp_path / "releases")
    out = tmp_path / "tally"
    proc = _reqbench("scaffold", *(f"dir:{t}" for t in trees), "--out", str(out), cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 subtasks (1 releases folded), F2P 2, P2P 1" in proc.stdout
    spec = yaml.safe_load((out / "instance.yaml").read_text())
    assert spec["repo"] == "repo" and spec["testbed"]["pythonpath"] == ["src"]
    assert spec["testbed"]["hidden_tests"] == "hidden"
    assert spec["common_p2p"] == P2P
    subs = [s for stage in spec["stages"] for s in stage["subtasks"]]
    assert {s["id"]: s["f2p"] for s in subs} == F2P
    assert subs[1]["p2p_include"] == ["T1"] and subs[1]["depends_on"] == ["T1"]
    assert all(s["request"].startswith("TODO") for s in subs)
    assert (out / "hidden" / "tests" / "test_tally.py").is_file() and (out / "repo" / "src" / "tally").is_dir()
    # T2's reference patch is v2 -> v4 restricted to the library: the docstring of v3 and mul of v4
    patch = (out / subs[1]["reference_patch"]).read_text()
    assert "+def mul(a, b):" in patch and "small arithmetic" in patch and "tests/" not in patch
    record = json.loads((out / "scaffold.json").read_text())
    assert [r["passed"] for r in record["releases"]] == [1, 2, 2, 3]
    assert record["subtasks"][1]["folded"] == ["v3"] and record["paths"] == ["src/tally/*"]
    spots = "overview, T1.request, T1.plain, T2.request, T2.plain"
    for command in (["validate", str(out)], ["journey", "calibrate", str(out), "--json"],
                    ["run", str(out), "--agent", "reference", "--out", str(tmp_path / "run"), "--quiet"]):
        refused = _reqbench(*command, cache=tmp_path / "cache", group=())
        assert refused.returncode == 2, (command, refused.stdout + refused.stderr)
        said = " ".join((refused.stdout + refused.stderr).split())
        assert f"{out / 'instance.yaml'}: {spots}: the instance is a scaffold with 5 part(s)" in said, said
    assert not (tmp_path / "run").exists()
    _write_placeholders(out / "instance.yaml")
    assert _reqbench("validate", str(out), cache=tmp_path / "cache", group=()).returncode == 0
    cal = _reqbench("calibrate", str(out), "--json", cache=tmp_path / "cache")
    assert cal.returncode == 0, cal.stdout + cal.stderr
    assert json.loads(cal.stdout)["ok"] is True



def test_scaffold_writes_the_environment_block_and_the_instance_validates_with_it(tmp_path: Path) -> None:
    trees = write_releases(tmp_path / "releases")
    out = tmp_path / "tally"
    block = {"python": {"requirements": ["tomli-w==1.0.0", "pytest==7.4.4"]}}  # the checks run in it
    proc = _reqbench("scaffold", *(f"dir:{t}" for t in trees), "--out", str(out), "--environment",
                     json.dumps(block), cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert yaml.safe_load((out / "instance.yaml").read_text())["environment"] == block
    _write_placeholders(out / "instance.yaml")
    checked = _reqbench("validate", str(out), cache=tmp_path / "cache", group=())
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_scaffold_refuses_a_bad_environment_and_writes_nothing(tmp_path: Path) -> None:
    trees = write_releases(tmp_path / "releases")
    out = tmp_path / "tally"
    proc = _reqbench("scaffold", *(f"dir:{t}" for t in trees), "--out", str(out), "--environment",
                     '{"python": {"requirements": "tomli-w"}, "debian": {}, "image": {}}', cache=tmp_path / "cache")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--environment" in proc.stderr and not out.exists()

def _write_placeholders(file: Path) -> None:
    """Every TODO of a scaffolded instance.yaml replaced by a written text."""
    spec = yaml.safe_load(file.read_text())
    spec["overview"] = "We use tally and need the arithmetic of its later releases, one at a time."
    for stage in spec["stages"]:
        for sub in stage["subtasks"]:
            sub["request"] = f"Please add what {sub['title']} brought (a TODO: list is not a placeholder)."
            sub["plain"] = "The calculator should do one more kind of sum."
    file.write_text(yaml.safe_dump(spec, sort_keys=False))


def test_a_local_git_project_is_named_after_its_repository_not_its_tag(tmp_path: Path) -> None:
    repo = tmp_path / "tally"
    repo.mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                       capture_output=True)

    git("init", "-q")
    for tree in write_releases(tmp_path / "releases")[:2]:
        subprocess.run(["cp", "-rT", str(tree), str(repo)], check=True)
        git("add", "-A")
        git("commit", "-qm", tree.name)
        git("tag", tree.name)
    out = tmp_path / "scaffolded"
    proc = _reqbench("scaffold", f"git:{repo}@v1", f"git:{repo}@v2", "--out", str(out), cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    spec = yaml.safe_load((out / "instance.yaml").read_text())
    assert spec["id"] == "tally" and spec["title"].startswith("tally grown from v1")
    assert [s["title"] for stage in spec["stages"] for s in stage["subtasks"]] == ["tally v2"]


def test_a_test_whose_result_differs_between_runs_is_left_out_as_flaky(tmp_path: Path) -> None:
    trees = write_releases(tmp_path / "releases")[:2]
    coin = "\n\ndef test_coin():\n    import os\n    assert os.urandom(1)[0] % 2\n"
    for tree in trees:  # a coin toss: 8 runs per release agree on both releases with p = 2**-14
        with (tree / "tests" / "test_tally.py").open("a") as fh:
            fh.write(coin)
    out = tmp_path / "tally"
    proc = _reqbench("scaffold", *(f"dir:{t}" for t in trees), "--out", str(out), "--runs", "8",
                     cache=tmp_path / "cache")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 subtasks (0 releases folded), F2P 1, P2P 1, 0 unstable and 1 flaky nodes left out" in proc.stdout
    record = json.loads((out / "scaffold.json").read_text())
    assert record["flaky_left_out"] == ["tests/test_tally.py::test_coin"]
    assert [r["nodes"] for r in record["releases"]] == [3, 3]  # add, sub, mul: the flaky node is in none
    spec = yaml.safe_load((out / "instance.yaml").read_text())
    assert [s["f2p"] for stage in spec["stages"] for s in stage["subtasks"]] == [F2P["T1"]]


def test_scaffold_refuses_an_existing_directory(tmp_path: Path) -> None:
    trees = write_releases(tmp_path / "releases")
    (tmp_path / "taken").mkdir()
    proc = _reqbench("scaffold", f"dir:{trees[0]}", f"dir:{trees[1]}", "--out", str(tmp_path / "taken"),
                     cache=tmp_path / "cache")
    assert proc.returncode != 0 and "already exists" in proc.stdout + proc.stderr


PYPI_CHAIN = ("cachetools==5.5.0", "cachetools==5.5.1", "cachetools==5.5.2")


def test_scaffold_pypi_releases_then_calibrate(tmp_path: Path, pypi_cache: Path) -> None:  # noqa: F811
    need_release(*PYPI_CHAIN)
    out = tmp_path / "cachetools"
    proc = _reqbench("scaffold", "cachetools==5.5.0,5.5.1,5.5.2", "--out", str(out), cache=pypi_cache)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    spec = yaml.safe_load((out / "instance.yaml").read_text())
    assert spec["repo"].startswith("pypi:cachetools==5.5.0#sha256=")
    assert spec["testbed"]["hidden_tests"].startswith("pypi:cachetools==5.5.2#sha256=")
    assert spec["testbed"]["hidden_include"] == ["tests"] and spec["testbed"]["pythonpath"] == ["src"]
    subs = [s for stage in spec["stages"] for s in stage["subtasks"]]
    # 5.5.2's 216 tests: 5.5.1 only added documentation (folded); 5.5.2's fewer lock operations fix
    # cache_info under a lock, the one node that fails before
    assert "1 subtasks (1 releases folded), F2P 1, P2P 215" in proc.stdout
    assert subs[0]["reference_patch"].startswith("pypi-diff:cachetools==5.5.0..5.5.2#")
    assert subs[0]["f2p"] == ["tests/test_cached.py::CacheWrapperTest::test_decorator_lock_info"]
    assert all("#paths=src/cachetools/*&sha256=" in s["reference_patch"] for s in subs)
    assert not (out / "repo").exists() and not (out / "hidden").exists()
    _write_placeholders(out / "instance.yaml")
    cal = _reqbench("calibrate", str(out), "--json", cache=pypi_cache)
    assert cal.returncode == 0, cal.stdout + cal.stderr
