"""Replay (eq. 2) agrees with a plain set model on every valid trace, and rejects every invalid one."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reqbench.protocols.specpath.replay import History, ReplayError, Turn, replay

ATOMS = ["a", "b", "c", "d"]
ops = st.lists(st.tuples(st.lists(st.sampled_from(ATOMS), max_size=2),
                         st.lists(st.sampled_from(ATOMS), max_size=2),
                         st.lists(st.sampled_from(ATOMS), max_size=2)), max_size=6)


@settings(max_examples=100, deadline=None)
@given(ops)
def test_replay_matches_set_semantics_or_names_the_invalid_step(trace) -> None:  # type: ignore[no-untyped-def]
    history = History("h", tuple(Turn("t", tuple(a), tuple(d), tuple(r)) for a, d, r in trace))
    state: set[str] = set()
    expected_error = None
    states = [frozenset()]
    for t, (act, deact, rest) in enumerate(trace, start=1):
        bad = [x for x in (*rest, *deact) if x not in state]
        if bad:
            expected_error = t
            break
        state = (state - set(deact)) | set(act)
        states.append(frozenset(state))
    if expected_error is None:
        assert replay(history).states == states
    else:
        try:
            replay(history)
        except ReplayError as exc:
            assert exc.turn == expected_error
        else:
            raise AssertionError("invalid trace accepted")
