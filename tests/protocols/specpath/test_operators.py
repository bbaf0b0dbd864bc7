"""History operators change one structural property each, and the no-revision control is length-exact."""

from __future__ import annotations

from reqbench.core.bundled import bundled_suite
from reqbench.protocols.specpath.family import load_family
from reqbench.protocols.specpath.operators import neutral_text, token_count
from reqbench.protocols.specpath.replay import replay

SUITE = bundled_suite("specpath")


def test_operators_change_one_structural_property_each() -> None:
    fam = load_family(SUITE / "durations")
    final = [a.id for a in fam.atoms]
    h = fam.histories
    assert [t.activate for t in h["direct"].turns] == [tuple(final)]
    assert [t.restate for t in h["duplicate"].turns] == [(), tuple(final)]
    assert [t.activate for t in h["split"].turns] == [(a,) for a in final]
    assert h["override"].turns[0].activate == ("compound_units", "bare_minutes", "reject_negative")
    assert (h["override"].turns[1].deactivate, h["override"].turns[1].activate) == \
        (("bare_minutes",), ("bare_seconds",))
    assert replay(h["cancellation"]).states[2] == frozenset([*final, "days_unit"])
    assert h["cancellation"].turns[0] == h["direct"].turns[0]
    assert len(h["paraphrase-direct"].turns) == 1


def test_neutral_text_hits_every_token_count_exactly() -> None:
    filler = ["Thanks.", "No rush at all.", "Hope you are well today."]
    for n in range(0, 40):
        text = neutral_text(filler, n)
        assert token_count(text) == n
    assert neutral_text(filler, 5) == "Thanks. No rush at all."  # whole sentences when they fit
    assert neutral_text(["One two three."], 2) == "One two…"  # cut only when nothing fits exactly
