"""Every hook a protocol offers is declared, with its default, on `SuiteProtocol`, `Suite` or `ProtocolStudy`
(one place, `core.execute.suite` and `core.protocol_study`): nothing in `src/` looks a hook up by name
(``getattr(protocol, "row_view", None)``) and a protocol that overrides nothing still answers every hook, so
a plugin protocol gets what reqbench's own get (that `reqbench.study` names no protocol: `test_layers`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from reqbench.core import registry
from reqbench.core.errors import InputError
from reqbench.core.execute.suite import Suite, SuiteProtocol, load_protocol
from reqbench.core.execute.types import Row, RowOutcome, RowStatus, RunOptions
from reqbench.core.protocol_study import ProtocolStudy, StudyRows
from reqbench.core.views import RowView

SRC = Path(__file__).resolve().parents[2] / "src" / "reqbench"
NOT_A_PROTOCOL = SimpleNamespace(name="duck", detect=lambda path: True)


def _hooks(*classes: type) -> set[str]:
    """The public attributes and methods a class declares (annotations included)."""
    found: set[str] = set()
    for cls in classes:
        found |= {name for name in (*vars(cls), *getattr(cls, "__annotations__", {})) if not name.startswith("_")}
    return found


HOOKS = _hooks(SuiteProtocol, Suite, ProtocolStudy) - {"name", "path", "protocol"}
LOOKUP = re.compile(r"\b(?:getattr|hasattr)\(\s*(?:[^,()]|\([^()]*\))+,\s*['\"](\w+)['\"]")
"""``getattr(OBJECT, "NAME"`` with OBJECT an expression holding at most one level of calls."""


def test_the_hooks_are_the_documented_ones() -> None:
    assert {"options_model", "result_model", "condition_context", "validation_note", "demo_runs", "warnings",
            "dataset_stats", "repeat_barrier", "unused_judge", "row_view", "run_view", "study", "environments",
            "reevaluate", "paired", "paired_value", "tables", "judge_labels", "record_columns",
            "frozen_user_option"} <= HOOKS


def test_no_hook_is_looked_up_by_name() -> None:
    found = [f"{p.relative_to(SRC)}:{n}: {m.group(0)}" for p in sorted(SRC.rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             for m in LOOKUP.finditer(line) if m.group(1) in HOOKS]
    assert found == []


class Bare(SuiteProtocol):
    """A protocol that implements only what it must."""

    name = "bare"

    def detect(self, path: Path) -> bool:
        return False

    def validate(self, path: Path) -> list[str]:
        return []

    def load(self, path: Path) -> Suite:
        raise NotImplementedError


def test_a_protocol_that_overrides_nothing_answers_every_hook_with_its_default(tmp_path: Path) -> None:
    bare, options = Bare(), RunOptions(agent="null")
    assert (bare.options_model, bare.result_model, bare.condition_context, bare.validation_note) == (None, None,
                                                                                                     None, "")
    assert bare.demo_runs() == [] and bare.warnings(tmp_path) == [] and bare.dataset_stats(tmp_path) is None
    assert bare.repeat_barrier(options) is None and bare.unused_judge(options) is None
    assert bare.row_view(None) == RowView(()) and bare.run_view([]) == ()  # type: ignore[arg-type]
    study = bare.study()
    row, outcome = Row("t", "c", "a"), RowOutcome(RowStatus.SCORED, result={})
    assert study.paired is None and study.paired_value(row, outcome) is None
    assert study.tables(StudyRows(None, {})) == []  # type: ignore[arg-type]
    assert not study.judge_labelled and study.judge_labels(outcome) == {} and study.record_columns([]) == {}
    assert study.frozen_user_option is None


def test_an_entry_that_is_not_a_suite_protocol_is_refused_by_name() -> None:
    registry.refresh()
    with pytest.raises(InputError, match="'tests.architecture.test_protocol_hooks_are_declared:NOT_A_PROTOCOL' "
                                         "is a SimpleNamespace, not a SuiteProtocol"):
        load_protocol("tests.architecture.test_protocol_hooks_are_declared:NOT_A_PROTOCOL")


def test_the_check_parses_what_it_reads() -> None:
    """Guard against a blind scan: the lookup pattern finds a lookup written as the old code wrote it."""
    old = ['hook = getattr(run.protocol, "row_view", None)',
           'model = getattr(load_protocol(protocol), "result_model", None)']
    assert [m.group(1) for line in old for m in LOOKUP.finditer(line)] == ["row_view", "result_model"]
    assert all(ast.parse(line) for line in old)
