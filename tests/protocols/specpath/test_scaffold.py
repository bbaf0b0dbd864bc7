"""`reqbench specpath scaffold`: a family skeleton from two releases, run as a real CLI subprocess.

Offline: two tiny sdists built here are put in the cache exactly as `pip download` leaves them (pip is
told not to use any index), the command writes the skeleton, `check` refuses it naming every spot left
to write, and once those are written the family passes `check` and `calibrate`. With PyPI (skipped
otherwise): parse 1.20.1 -> 1.20.2 yields the two upstream hyphen tests as candidate probes.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from reqbench.core.hashing import sha256_file
from reqbench.protocols.specpath.scaffold import licence_of
from tests.support.pypi import need_release, pypi_cache  # noqa: F401  (fixture)

PKG_INFO = ("Metadata-Version: 2.1\nName: tinylib\nVersion: {v}\n"
            "Project-URL: Source, https://example.org/tinylib\n"
            "Classifier: License :: OSI Approved :: MIT License\n")
RELEASES = {
    "1.0": {
        "tinylib/__init__.py": "",
        "tinylib/core.py": "def shout(text):\n    return text.upper()\n",
        "README.md": "tinylib\n",
        "tests/test_core.py": ("from tinylib.core import shout\n\n\ndef test_shout():\n    assert shout('a') == 'A'\n"
                               "\n\ndef test_unchanged():\n    assert shout('') == ''\n"),
    },
    "1.1": {
        "tinylib/__init__.py": "",
        "tinylib/core.py": ("def shout(text, mark=\"\"):\n    return text.upper() + mark\n\n\n"
                            "def whisper(text):\n    return text.lower()\n"),
        "README.md": "tinylib: shout with a mark, whisper\n",
        "tests/test_core.py": ("import unittest\n\nfrom tinylib.core import shout, whisper\n\nMARK = '!'\n\n\n"
                               "def test_shout():\n    assert shout('a', MARK) == 'A!'\n\n\n"
                               "def test_unchanged():\n    assert shout('') == ''\n\n\n"
                               "def test_mark_default():\n    assert shout('b') == 'B'\n\n\n"
                               "def test_whisper():\n    assert whisper('AbC') == 'abc'\n\n\n"
                               "class TestMarks:\n    def test_double(self):\n"
                               "        assert shout(shout('x', MARK), MARK) == 'X!!'\n\n\n"
                               "class WhisperTests(unittest.TestCase):\n    def test_empty(self):\n"
                               "        self.assertEqual(whisper(''), '')\n"),
    },
}
NEGATIVES = {
    "suffix_arg": ("diff --git a/tinylib/core.py b/tinylib/core.py\n--- a/tinylib/core.py\n+++ b/tinylib/core.py\n"
             "@@ -1,3 +1,3 @@\n def shout(text, mark=\"\"):\n-    return text.upper() + mark\n"
                   "+    return text.upper()\n \n"),
    "quiet_fn": ("diff --git a/tinylib/core.py b/tinylib/core.py\n--- a/tinylib/core.py\n+++ b/tinylib/core.py\n"
                "@@ -5,2 +5,2 @@\n def whisper(text):\n-    return text.lower()\n+    return text\n"),
}


def _sdist(cache: Path, version: str) -> Path:
    """tinylib-VERSION.tar.gz in the cache folder `pip download` fills, with its recorded sha256."""
    folder = cache / "pypi" / f"tinylib-{version}"
    folder.mkdir(parents=True)
    path = folder / f"tinylib-{version}.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        for rel, text in {**RELEASES[version], "PKG-INFO": PKG_INFO.format(v=version)}.items():
            data = text.encode()
            info = tarfile.TarInfo(f"tinylib-{version}/{rel}")
            info.size, info.mtime = len(data), 1_600_000_000
            tf.addfile(info, io.BytesIO(data))
    (folder / "sdist.sha256").write_text(sha256_file(path) + "\n")
    return path


def _cli(*args: str, cache: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REQBENCH_CACHE": str(cache), "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(cwd)}
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def _fill_in(family: Path) -> None:
    """What a person writes into the skeleton: atoms, a fixed obligation, decoys, phrasings, negatives."""
    data = yaml.safe_load((family / "family.yaml").read_text())
    data["description"] = "tinylib 1.0 -> 1.1: shout takes a mark; whisper"
    data["provenance"]["adapted"] = "probes verbatim; the rest written for this test"
    data["negatives"] = {"suffix_arg": "reference + negatives/suffix_arg.patch",
                        "quiet_fn": "reference + negatives/quiet_fn.patch"}
    data["atoms"] = [
        {"id": "suffix_arg", "scope": "tinylib.core.shout", "condition": "a mark is given", "observation":
         "the mark follows the upper-cased text",
         "probes": ["test_probes.py::test_shout", "test_probes.py::TestMarks::test_double"]},
        {"id": "quiet_fn", "scope": "tinylib.core.whisper", "condition": "any text",
         "observation": "the text lower-cased",
         "probes": ["test_probes.py::test_whisper", "test_probes.py::WhisperTests::test_empty"]}]
    data["fixed"] = [{"id": "plain", "scope": "tinylib.core.shout", "observation": "upper-cased",
                      "probes": ["test_probes.py::test_mark_default"]}]
    data["decoys"] = [{"id": "prefix_arg", "scope": "shout", "observation": "the mark comes first"},
                      {"id": "extra_fn", "scope": "tinylib.core", "observation": "a mutter function"}]
    gen = data["generate"]
    gen["phrasings"] = {"suffix_arg": "shout(text, mark) appends the mark.",
                        "quiet_fn": "Add whisper(text), lower-case.",
                        "prefix_arg": "shout(text, mark) puts the mark first.", "extra_fn": "Also add mutter(text)."}
    gen["paraphrase"] = "Give shout a trailing mark argument and add a lower-casing whisper."
    gen["override"] = {"decoy": "prefix_arg", "replaced_by": "suffix_arg", "revision": "Change of plan on the mark."}
    gen["cancellation"] = {"decoy": "extra_fn", "cancel": "Forget mutter."}
    (family / "family.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    for atom, text in NEGATIVES.items():
        (family / "negatives" / f"{atom}.patch").write_text(text)
    for old in ("atom_1", "atom_2"):
        (family / "negatives" / f"{old}.patch").unlink()


def test_scaffold_from_two_local_sdists_then_check_names_the_gaps_then_calibrates(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    sha = {v: sha256_file(_sdist(cache, v)) for v in RELEASES}
    family = tmp_path / "families" / "tiny-mark"
    done = _cli("scaffold", "tinylib==1.0", "tinylib==1.1", "--out", str(family), cache=cache, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "candidate probe" in done.stdout and "reqbench specpath check" in done.stdout
    data = yaml.safe_load((family / "family.yaml").read_text())
    assert data["base_repo"] == f"pypi:tinylib==1.0#sha256={sha['1.0']}"
    # default filter: every changed file that is not a test, both sdists pinned
    assert data["reference_patch"] == (f"pypi-diff:tinylib==1.0..1.1#paths=README.md,tinylib/core.py"
                                       f"&sha256={sha['1.0']},{sha['1.1']}")
    assert data["provenance"]["licence"] == "MIT"
    assert data["provenance"]["project"] == "tinylib (https://example.org/tinylib)"
    assert data["verifier"]["pythonpath"] == ["."]
    assert data["atoms"][0]["probes"] == [  # file order; test_unchanged is not a candidate
        "test_probes.py::test_shout", "test_probes.py::test_mark_default", "test_probes.py::test_whisper",
        "test_probes.py::TestMarks::test_double", "test_probes.py::WhisperTests::test_empty"]
    probes = (family / "hidden" / "test_probes.py").read_text()
    assert "# origin: tests/test_core.py::test_shout (changed)" in probes
    assert "# origin: tests/test_core.py::test_whisper (added)" in probes
    assert "MARK = '!'" in probes and "def test_unchanged" not in probes
    for line in ("tests/test_core.py", "README.md", "tinylib/core.py"):
        assert f"#   {line}" in (family / "family.yaml").read_text()

    check = _cli("check", str(family), cache=cache, cwd=tmp_path)
    assert check.returncode == 2 and "Traceback" not in check.stderr
    for spot in ("atoms[0].scope", "atoms[1].probes[0]", "generate.paraphrase", "negatives/atom_1.patch",
                 "provenance.adapted"):
        assert spot in check.stderr
    assert "FILL IN" in check.stderr

    _fill_in(family)
    assert _cli("check", str(family), cache=cache, cwd=tmp_path).returncode == 0
    cal = _cli("calibrate", str(family), "--out", str(family / "calibration.json"), cache=cache, cwd=tmp_path)
    assert cal.returncode == 0, cal.stdout + cal.stderr
    assert "FAIL" not in cal.stdout



PYTHON_BLOCK = '{"python": {"requirements": ["tomli-w==1.0.0"]}}'


def test_scaffold_writes_the_environment_block_and_the_family_validates_with_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for v in RELEASES:
        _sdist(cache, v)
    family = tmp_path / "families" / "tiny-mark"
    done = _cli("scaffold", "tinylib==1.0", "tinylib==1.1", "--out", str(family), "--environment", PYTHON_BLOCK,
                cache=cache, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert yaml.safe_load((family / "family.yaml").read_text())["environment"] == {
        "python": {"requirements": ["tomli-w==1.0.0"]}}
    _fill_in(family)
    assert _cli("check", str(family), cache=cache, cwd=tmp_path).returncode == 0
    assert yaml.safe_load((family / "family.yaml").read_text())["environment"]["python"]


def test_scaffold_refuses_a_bad_environment_before_fetching_anything(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    bad = _cli("scaffold", "tinylib==1.0", "tinylib==1.1", "--out", str(tmp_path / "x"),
               "--environment", '{"python": {"interpreter": 3}}', cache=cache, cwd=tmp_path)
    assert bad.returncode == 2, bad.stdout + bad.stderr
    assert "--environment" in bad.stderr and "environment.python.interpreter" in bad.stderr
    assert "could not download" not in bad.stderr and not (tmp_path / "x").exists()

def test_scaffold_refuses_bad_arguments_and_never_overwrites(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    bad = _cli("scaffold", "tinylib==1.0", "other==1.1", "--out", str(tmp_path / "x"), cache=cache, cwd=tmp_path)
    assert bad.returncode == 2 and "one project" in bad.stderr
    bad = _cli("scaffold", "tinylib", "tinylib==1.1", "--out", str(tmp_path / "x"), cache=cache, cwd=tmp_path)
    assert bad.returncode == 2 and "NAME==VERSION" in bad.stderr
    taken = _cli("scaffold", "tinylib==1.0", "tinylib==1.1", "--out", str(tmp_path / "taken"), cache=cache,
                 cwd=tmp_path)
    assert taken.returncode == 2 and "never overwrites" in taken.stderr
    assert (tmp_path / "taken" / "keep.txt").read_text() == "mine"
    missing = _cli("scaffold", "tinylib==1.0", "tinylib==1.1", "--out", str(tmp_path / "y"), cache=cache,
                   cwd=tmp_path)
    assert missing.returncode == 2 and "could not download" in missing.stderr and not (tmp_path / "y").exists()


@pytest.mark.parametrize("pkg_info, expected", [
    ("Name: a\nLicense-Expression: Apache-2.0\nLicense: whatever\n", "Apache-2.0"),
    ("Name: a\nLicense: BSD-3-Clause\n", "BSD-3-Clause"),
    ("Name: a\nLicense: UNKNOWN\nClassifier: License :: OSI Approved :: MIT License\n", "MIT"),
    ("Name: a\nClassifier: License :: OSI Approved :: GNU General Public License v3 (GPLv3)\n",
     "GNU General Public License v3 (GPLv3)"),
    ("Name: a\n", ""),
])
def test_licence_from_sdist_metadata(pkg_info: str, expected: str) -> None:
    assert licence_of(pkg_info) == expected


def test_scaffold_on_pypi_finds_the_upstream_tests_of_the_change(pypi_cache: Path, tmp_path: Path) -> None:  # noqa: F811
    need_release("parse==1.20.1", "parse==1.20.2")
    family = tmp_path / "parse-hyphens"
    done = _cli("scaffold", "parse==1.20.1", "parse==1.20.2", "--out", str(family), "--paths", "parse.py",
                cache=pypi_cache, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "(1 file(s), +7/-5 lines)" in done.stdout
    data = yaml.safe_load((family / "family.yaml").read_text())
    assert data["base_repo"].startswith("pypi:parse==1.20.1#sha256=")
    assert data["reference_patch"].startswith("pypi-diff:parse==1.20.1..1.20.2#paths=parse.py&sha256=")
    assert data["provenance"]["licence"] == "MIT"
    assert data["atoms"][0]["probes"] == ["test_probes.py::test_hyphen_inside_field_name",
                                          "test_probes.py::test_hyphen_inside_field_name_collision_handling"]
    check = _cli("check", str(family), cache=pypi_cache, cwd=tmp_path)
    assert check.returncode == 2 and "atoms[0].scope" in check.stderr and "Traceback" not in check.stderr
