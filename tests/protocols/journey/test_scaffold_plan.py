"""`journey.scaffold_plan`: subtasks derived from per-release results, checked against hand-computed sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from reqbench.core.errors import InputError
from reqbench.protocols.journey.scaffold import library_layout
from reqbench.protocols.journey.scaffold_plan import plan

T, F = True, False


def _results(table: dict[str, str]) -> list[dict[str, bool]]:
    """`table`: node -> one character per release ('1' passes, '0' fails, '-' not reported)."""
    width = len(next(iter(table.values())))
    return [{n: row[i] == "1" for n, row in table.items() if row[i] != "-"} for i in range(width)]


def test_steps_f2p_p2p_and_folding() -> None:
    results = _results({
        "t::old": "11111",     # passes everywhere: P2P
        "t::a": "01111",       # F2P of release 1
        "t::b": "-0011",       # not collected at 0, fails at 1 and 2, passes from 3: F2P of 3
        "t::flip": "10111",    # passes, breaks at a kept release, passes again: unstable, left out
        "t::never": "00000",   # fails at the final release: no target
    })
    p = plan(results)
    # release 2 has no F2P of its own: folded into the step 1 -> 3; release 4 likewise into 3 -> 4
    assert [(s.start, s.end, s.f2p) for s in p.steps] == [(0, 1, ["t::a"]), (1, 4, ["t::b"])]
    assert p.steps[1].folded == [2, 3]
    assert p.p2p == ["t::old"] and p.unstable == ["t::flip"] and p.failing_at_end == 1


def test_folding_can_make_a_node_stable() -> None:
    # c passes at 1 but fails at 2, so over all releases it is unstable; release 1 has no F2P (a's first
    # pass is 3), so it is folded and over the kept releases 0, 2, 3 c becomes an F2P node of step 2 -> 3
    results = _results({"t::a": "0001", "t::c": "0101", "t::d": "0011"})
    p = plan(results)
    assert [(s.start, s.end, sorted(s.f2p)) for s in p.steps] == [(0, 2, ["t::d"]), (2, 3, ["t::a", "t::c"])]
    assert p.unstable == []


def test_nothing_tells_the_releases_apart() -> None:
    with pytest.raises(InputError, match="tells the first and the last release apart"):
        plan(_results({"t::x": "111"}))


def test_nothing_passes_at_the_final_release_names_the_layout() -> None:
    with pytest.raises(InputError, match="src/ layout needs pythonpath"):
        plan([{"t::x": F}, {"t::x": F}])


def test_one_release_is_not_a_chain() -> None:
    with pytest.raises(InputError, match="at least two releases"):
        plan([{"t::x": T}])


def test_library_layout_of_flat_src_and_test_modules(tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    for rel in ("parse.py", "test_parse.py", "setup.py", "tests/test_x.py", "docs/conf.py", "pkg/__init__.py",
                "parse.egg-info/PKG-INFO"):
        (flat / rel).parent.mkdir(parents=True, exist_ok=True)
        (flat / rel).write_text("")
    assert library_layout(flat) == (["parse.py", "pkg/*"], ["."])
    src = tmp_path / "src-layout"
    for rel in ("src/cachetools/__init__.py", "src/cachetools.egg-info/PKG-INFO", "tests/__init__.py"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("")
    assert library_layout(src) == (["src/cachetools/*"], ["src"])
    with pytest.raises(InputError, match="--paths"):
        library_layout(tmp_path / "flat" / "tests")  # only test modules: no library to name
