"""A one-atom family built on the fly (fast to calibrate and run), and helpers to break it on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from reqbench.core.workspace import diff_trees

BASE = '''"""tally: count words."""


def tally(words):
    """Return {word: count}."""
    counts = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts
'''
PROBES = '''from tally import tally


def test_case_is_ignored():
    assert tally(["A", "a", "b"]) == {"a": 2, "b": 1}


def test_words_are_counted():
    assert tally(["x", "x", "y"]) == {"x": 2, "y": 1}
'''
FAMILY = {
    "id": "tally",
    "negatives": {"ignore_case": "negatives/ignore_case.patch"},
    "atoms": [{"id": "ignore_case", "scope": "tally.tally", "condition": "words differ only in case",
               "polarity": "require", "observation": "they are counted as one lowercase word",
               "probes": ["test_probes.py::test_case_is_ignored"]}],
    "fixed": [{"id": "counts_words", "scope": "tally.tally", "condition": "any list of words",
               "polarity": "require", "observation": "each word maps to its number of occurrences",
               "probes": ["test_probes.py::test_words_are_counted"]}],
    "decoys": [{"id": "upper_keys", "scope": "tally.tally", "condition": "any word",
                "polarity": "require", "observation": "keys are uppercase"},
               {"id": "drop_blank", "scope": "tally.tally", "condition": "an empty word",
                "polarity": "require", "observation": "it is not counted"}],
    "generate": {
        "opening": "A change to `tally`, please.",
        "phrasings": {"ignore_case": "Count words case-insensitively and report them in lowercase.",
                      "upper_keys": "Count words case-insensitively and report them in uppercase.",
                      "drop_blank": "Skip empty strings."},
        "paraphrase": "Make `tally` treat words that differ only by letter case as the same word, keyed "
                      "in lowercase.",
        "override": {"decoy": "upper_keys", "replaced_by": "ignore_case",
                     "revision": "Sorry, I got the case wrong."},
        "cancellation": {"decoy": "drop_blank", "cancel": "Forget the empty-string rule."},
        "filler": ["Thanks.", "No rush at all.", "Hope you are well.", "Cheers.",
                   "Appreciate it, as always."],
    },
}


def _patch(tmp: Path, new_source: str) -> str:
    a, b = tmp / "pa", tmp / "pb"
    for d, text in ((a, BASE), (b, new_source)):
        shutil.rmtree(d, ignore_errors=True)
        (d / "src" / "tally").mkdir(parents=True)
        (d / "src" / "tally" / "__init__.py").write_text(text)
    return diff_trees(a, b)


def build_tally_family(root: Path) -> Path:
    fam = root / "tally"
    (fam / "repo" / "src" / "tally").mkdir(parents=True)
    (fam / "repo" / "src" / "tally" / "__init__.py").write_text(BASE)
    (fam / "hidden").mkdir()
    (fam / "hidden" / "test_probes.py").write_text(PROBES)
    (fam / "negatives").mkdir()
    loop = "    for w in words:\n"
    (fam / "reference.patch").write_text(_patch(root, BASE.replace(loop, loop + "        w = w.lower()\n")))
    (fam / "negatives" / "ignore_case.patch").write_text(
        _patch(root, BASE.replace(loop, loop + "        w = w.strip()\n")))
    (fam / "family.yaml").write_text(yaml.safe_dump(FAMILY, sort_keys=False))
    return fam


@pytest.fixture
def tally_family(tmp_path: Path) -> Path:
    return build_tally_family(tmp_path)
