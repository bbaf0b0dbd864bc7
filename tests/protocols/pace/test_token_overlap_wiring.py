"""The offline `token-overlap` heuristic counts only code the candidate wires in (`judges/wired.py`): a no-op
patch stuffed with the reference's identifiers in dead or unreached code scores no more than the empty
candidate, and no "success rate" is ever printed from the heuristic (PACE-Bench §3.1)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from reqbench.core.workspace import diff_trees
from reqbench.protocols.pace.case import load_suite
from reqbench.protocols.pace.judges import withheld_success_rate
from reqbench.protocols.pace.judges.wired import live_added, never_true
from reqbench.protocols.pace.score import Scorer
from tests.protocols.pace.conftest import EXAMPLES


@pytest.mark.parametrize(("condition", "dead"), [
    ("0", True), ("False", True), ("None", True), ("''", True), ("1 == 2", True), ("not 1", True),
    ("0 and x", True),  # falsy whatever `x` is (short-circuit)
    ("x and y", False),  # reads names: assumed live
    ("1", False), ("x", False), ("len([])", False), ("9 ** 9", False),  # powers are never folded
])
def test_constant_false_guards(condition: str, dead: bool) -> None:
    assert never_true(condition) is dead


def test_javascript_constant_false_guards() -> None:
    assert never_true("false", javascript=True) and never_true("0", javascript=True)
    assert not never_true("flag", javascript=True)


def test_live_added_drops_dead_blocks_and_code_after_an_exit() -> None:
    diff = "\n".join([
        "@@ -1,2 +1,9 @@",
        " def f(x):",
        "+    if 0:",             # 2: the guard itself is live (it runs, and is false)
        "+        stuffed(x)",    # 3: dead
        "+    y = x + 1",         # 4: live
        "+    return (y,",        # 5: live
        "+            y)",        # 6: the return's continuation: live
        "+    unreachable(y)",    # 7: after the return: dead
        " ",
        "+z = 1",                 # 9: module level, live
    ])
    assert [n for n, _ in live_added(diff)] == [2, 4, 5, 6, 9]


def _case(case_id: str):  # type: ignore[no-untyped-def]
    return next(c for c in load_suite(EXAMPLES)[1] if c.id == case_id)


def _stuffed(scorer: Scorer, where: str, scratch: Path) -> str:
    """The reference's added statements (its identifiers and the PRD's) stuffed into code that never runs:
    `module` -- a constant-false block at the end of every file the reference touches; `function` -- a new
    function nothing calls; `inside` -- a constant-false block at the top of an existing function."""
    ref = scorer.case.reference_patch
    lines = [raw[1:].strip() for raw in ref.splitlines() if raw.startswith("+") and not raw.startswith("+++")]
    body = [x for x in lines if x and not x.endswith((":", "(", ",", "[", "{")) and not x.startswith(
        ("@", "def ", "class ", ")", "]", "}", '"""', "#", "//", "function ", "export ", "import "))]
    files = [raw[6:] for raw in ref.splitlines() if raw.startswith("+++ b/") and raw.endswith((".py", ".js"))]
    a, b = scratch / f"stuff-a-{where}", scratch / f"stuff-b-{where}"  # never beside the bundled suite
    for d in (a, b):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(scorer.base, d)
    for rel in files:
        target = b / rel
        if not target.is_file():
            continue
        text, js = target.read_text(), rel.endswith(".js")
        block = "\n".join("    " + x for x in body)
        if where == "module":
            text += ("\nif (false) {\n" + block + "\n}\n") if js else ("\n\nif 0:\n" + block + "\n")
        elif where == "function":
            text += ("\nfunction neverCalled() {\n" + block + "\n}\n") if js else \
                ("\n\ndef _never_called():\n" + block + "\n")
        elif not js:
            head, sep, rest = text.partition("\ndef ")
            if not sep:
                continue
            signature, colon, tail = rest.partition(":\n")
            inner = "\n".join("        " + x for x in body)
            text = f"{head}{sep}{signature}{colon}    if False:\n{inner}\n{tail}"
        target.write_text(text)
    return diff_trees(a, b)


@pytest.mark.parametrize("case_id", ["billflow-credit-notes", "shopcart-discounts"])
def test_identifiers_stuffed_into_dead_or_unreached_code_score_no_more_than_the_empty_candidate(
        case_id: str, tmp_path: Path) -> None:
    scorer = Scorer(_case(case_id))
    empty = scorer.score("", "token-overlap").score
    assert (scorer.score(scorer.case.reference_patch, "token-overlap").score, empty) == (100.0, 0.0)
    for where in ("module", "function", "inside"):
        patch = _stuffed(scorer, where, tmp_path)
        if not patch.strip():  # `inside` needs a Python function to stuff (shopcart is JavaScript)
            assert where == "inside" and case_id == "shopcart-discounts"
            continue
        assert scorer.score(patch, "token-overlap").score <= empty, where


def test_no_success_rate_from_the_heuristic() -> None:
    assert withheld_success_rate(["token-overlap/v1"]).startswith("withheld")
    assert withheld_success_rate(["offline-heuristic"]) is not None
    assert withheld_success_rate(["llm:judge-m", "replay:f"]) is None
