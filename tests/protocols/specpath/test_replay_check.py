"""Replay (eq. 2), normalisation (eq. 3) and `specpath check` on bundled and deliberately broken families."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from reqbench.core.bundled import bundled_suite
from reqbench.core.errors import InputError
from reqbench.protocols.specpath.equivalence import check_family
from reqbench.protocols.specpath.family import load_family, render_history
from reqbench.protocols.specpath.models import ALL_CONDITIONS, Polarity
from reqbench.protocols.specpath.operators import token_count
from reqbench.protocols.specpath.replay import Atom, History, ReplayError, Turn, normalize, replay

SUITE = bundled_suite("specpath")


def _family_copy(tmp_path: Path, name: str = "kvconf") -> Path:
    dest = tmp_path / name
    shutil.copytree(SUITE / name, dest)
    return dest


def _edit_yaml(family_dir: Path, edit) -> None:  # type: ignore[no-untyped-def]
    path = family_dir / "family.yaml"
    data = yaml.safe_load(path.read_text())
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_replay_applies_deactivation_before_activation_within_a_turn() -> None:
    h = History("override", (Turn("a", activate=("old", "x")),
                             Turn("b", deactivate=("old",), activate=("new",))))
    res = replay(h)
    assert res.states == [frozenset(), frozenset({"old", "x"}), frozenset({"x", "new"})]


def test_restating_an_inactive_atom_is_a_replay_error() -> None:
    h = History("duplicate", (Turn("a", activate=("x",)), Turn("b", restate=("y",))))
    with pytest.raises(ReplayError) as exc:
        replay(h)
    assert (exc.value.turn, exc.value.atom) == (2, "y")


def test_deactivating_an_inactive_atom_is_a_replay_error() -> None:
    h = History("cancellation", (Turn("a", activate=("x",)), Turn("b", deactivate=("x",)),
                                 Turn("c", deactivate=("x",))))
    with pytest.raises(ReplayError) as exc:
        replay(h)
    assert exc.value.turn == 3


def test_normalisation_ignores_order_and_whitespace_but_keeps_polarity() -> None:
    a = Atom("a", "m.f", "c", Polarity.REQUIRE, "returns  1")
    b = Atom("b", "m.g", "c", Polarity.FORBID, "raises")
    assert normalize([a, b]) == normalize([b, Atom("a", " m.f ", "other condition", Polarity.REQUIRE,
                                                   "returns 1")])
    assert normalize([a]) != normalize([Atom("a", "m.f", "c", Polarity.FORBID, "returns 1")])


def test_every_bundled_history_is_contract_equivalent() -> None:
    for name in ("slugkit", "kvconf", "durations"):
        family = load_family(SUITE / name)
        assert set(family.histories) == set(ALL_CONDITIONS)
        report = check_family(family)
        assert report.ok, report.to_dict()
        assert all(v == report.contract for v in report.histories.values())
        assert any(a.polarity is Polarity.FORBID for a in family.atoms)


def test_length_matched_control_matches_cancellation_turns_and_tokens() -> None:
    for name in ("slugkit", "kvconf", "durations"):
        f = load_family(SUITE / name)
        lm, ca = f.histories["length-matched-no-revision"], f.histories["cancellation"]
        assert [token_count(t.text) for t in lm.turns] == [token_count(t.text) for t in ca.turns]
        assert lm.turns[0] == f.histories["direct"].turns[0]


def test_rendered_history_shows_no_labels_or_atom_ids() -> None:
    family = load_family(SUITE / "slugkit")
    ids = [*family.catalog, *(a.id for a in family.fixed)]
    for history in family.histories.values():
        text = render_history(history)
        assert not any(i in text for i in ids)
        for turn in history.turns:  # once the turn texts are removed only headings remain
            text = text.replace(turn.text.strip(), "")
        residue = [ln for ln in text.splitlines()[3:] if ln.strip()]
        assert residue == [f"## Message {i}" for i in range(1, len(history.turns) + 1)]


def test_check_names_first_divergent_turn_of_a_stale_override(tmp_path: Path) -> None:
    fam = _family_copy(tmp_path)
    base = load_family(fam)

    def stale(data: dict) -> None:  # the revision forgets to deactivate the obsolete atom
        turns = [{"text": t.text, "activate": list(t.activate), "deactivate": list(t.deactivate),
                  "restate": list(t.restate)} for t in base.histories["override"].turns]
        turns[1]["deactivate"] = []
        turns.append({"text": "Thanks."})
        data["histories"] = {"override": turns}

    _edit_yaml(fam, stale)
    report = check_family(load_family(fam))
    assert not report.ok
    (div,) = report.divergences
    assert div.history == "override" and div.reference == "direct"
    assert div.turn == 1
    assert [(a.atom, a.kind) for a in div.atoms] == [("last_wins", "extra")]


def test_check_reports_a_replay_error_with_history_and_turn(tmp_path: Path) -> None:
    fam = _family_copy(tmp_path)
    _edit_yaml(fam, lambda d: d.update(histories={"duplicate": [
        {"text": "Ignore comment lines.", "activate": ["skip_comments"]},
        {"text": "And once more about whitespace.", "restate": ["strip_space"]}]}))
    report = check_family(load_family(fam))
    assert report.errors == ["history 'duplicate' turn 2: atom 'strip_space': restates an atom that is "
                             "not active"]


def test_check_refuses_a_history_text_that_shows_an_atom_id(tmp_path: Path) -> None:
    fam = _family_copy(tmp_path)
    _edit_yaml(fam, lambda d: d.update(histories={"paraphrase-direct": [
        {"text": "Implement skip_comments, strip_space and reject_duplicates.",
         "activate": ["skip_comments", "strip_space", "reject_duplicates"]}]}))
    report = check_family(load_family(fam))
    assert len([e for e in report.errors if "shows atom id" in e]) == 3


def test_length_mismatch_of_hand_written_control_is_reported(tmp_path: Path) -> None:
    fam = _family_copy(tmp_path)
    direct = load_family(fam).histories["direct"].turns[0]
    _edit_yaml(fam, lambda d: d.update(histories={"length-matched-no-revision": [
        {"text": direct.text, "activate": list(direct.activate)}, {"text": "Thanks."}, {"text": "Bye."}]}))
    report = check_family(load_family(fam))
    assert any("whitespace tokens" in e for e in report.errors)


def test_atom_without_probes_is_refused_as_empty_bucket(tmp_path: Path) -> None:
    fam = _family_copy(tmp_path)
    _edit_yaml(fam, lambda d: d["atoms"][0].update(probes=[]))
    with pytest.raises(InputError, match="empty buckets fail closed"):
        load_family(fam)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reqbench.cli.main", "specpath", *args],
                          capture_output=True, text=True, timeout=120)


def test_cli_check_exit_codes(tmp_path: Path) -> None:
    ok = _cli("check", str(SUITE / "durations"), "--json")
    assert ok.returncode == 0 and json.loads(ok.stdout)["ok"] is True
    fam = _family_copy(tmp_path, "durations")
    _edit_yaml(fam, lambda d: d.update(histories={"split": [
        {"text": "Handle compound units.", "activate": ["compound_units"]},
        {"text": "Bare numbers are seconds.", "activate": ["bare_seconds"]}]}))
    bad = _cli("check", str(fam), "--json")
    assert bad.returncode == 1
    div = json.loads(bad.stdout)["divergences"][0]
    assert div["history"] == "split" and div["turn"] is None
    assert div["atoms"] == [{"atom": "reject_negative", "kind": "missing", "turn": None}]
    (fam / "family.yaml").write_text("id: [unclosed")
    assert _cli("check", str(fam)).returncode == 2
