"""What a run reads from outside its suite (`core.execute.run_inputs`): a resume compares the recorded facts,
names each input that changed, and cannot compare a run recorded before inputs were (so it resumes it)."""

from __future__ import annotations

from reqbench.core.execute.run_inputs import changed_inputs, input_statements

TEXTS = {"label": "Phase-A texts", "sha256": {"instructions.md": "a"}, "statement": "released texts"}


def test_a_changed_digest_or_a_new_input_is_named() -> None:
    stored = {"inputs": {"phase_a_texts": TEXTS}}
    assert changed_inputs(stored, {"inputs": {"phase_a_texts": TEXTS}}) == []
    edited = {**TEXTS, "sha256": {"instructions.md": "b"}}
    assert changed_inputs(stored, {"inputs": {"phase_a_texts": edited}}) == ["phase_a_texts"]
    assert changed_inputs(stored, {"inputs": {"phase_a_texts": TEXTS, "other": {}}}) == ["other"]
    assert changed_inputs(stored, {}) == ["phase_a_texts"]


def test_a_run_recorded_before_inputs_existed_is_not_compared() -> None:
    assert changed_inputs({"agent": {}}, {"inputs": {"phase_a_texts": TEXTS}}) == []


def test_reports_print_each_input_by_its_label() -> None:
    assert input_statements({"inputs": {"phase_a_texts": TEXTS, "raw": {"sha256": "c"}}}) == [
        ("Phase-A texts", "released texts"), ("raw", '{"sha256": "c"}')]
