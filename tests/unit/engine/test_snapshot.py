"""Snapshots: a state written as JSON data and read back is the same state."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, Rules, apply, new_series, new_series_with_events
from engine.game import generate
from engine.snapshot import SNAPSHOT_VERSION, state_from_dict, state_to_dict
from engine.state import State


def _states(preset: str, seed: int, rounds: int) -> list[State]:
    """Every state of a random series, first to last."""
    rng = random.Random(seed)
    state = new_series(Rules.preset(preset, rounds=rounds), seed)
    states = [state]
    while not state.is_over:
        state, _ = apply(state, rng.choice(generate(state)))
        states.append(state)
    return states


@settings(max_examples=25, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**9),
       rounds=st.integers(1, 3))
def test_every_state_of_a_series_round_trips_through_json(preset: str, seed: int,
                                                          rounds: int) -> None:
    for state in _states(preset, seed, rounds)[::7] + _states(preset, seed, rounds)[-1:]:
        data = json.loads(json.dumps(state_to_dict(state)))  # only JSON types inside
        assert state_from_dict(data) == state


@settings(max_examples=15, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**9))
def test_a_snapshot_without_the_logs_and_rules_takes_them_back_separately(
        preset: str, seed: int) -> None:
    for state in _states(preset, seed, 3)[::5]:
        data = json.loads(json.dumps(state_to_dict(state, logs=False, rules=False)))
        assert not {"log", "past_logs", "rules"} & data.keys()
        rules = state.rules.to_dict()
        assert state_from_dict(data, state.log_entries(), rules) == state
        with pytest.raises(ValueError, match="rules"):
            state_from_dict(data, state.log_entries())
        if state.log_entries():
            with pytest.raises(ValueError, match="entries"):
                state_from_dict(data, rules=rules)


@settings(max_examples=10, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**9))
def test_a_snapshot_of_the_earlier_layout_with_the_current_log_still_reads(
        preset: str, seed: int) -> None:
    """Stored before the current round's log was left out too: it holds that log, not
    the earlier rounds' ones."""
    for state in _states(preset, seed, 3)[::5]:
        data = json.loads(json.dumps(state_to_dict(state)))
        del data["past_logs"]
        assert state_from_dict(data, state.log_entries()) == state


@settings(max_examples=15, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**9))
def test_the_entries_after_n_are_the_log_from_n_on(preset: str, seed: int) -> None:
    states = _states(preset, seed, 3)
    final = states[-1]
    for count in range(0, len(final.log_entries()) + 2, 3):
        assert final.entries_after(count) == final.log_entries()[count:]
    for before, after in zip(states, states[1:]):  # each move adds one entry
        assert after.entries_after(len(before.log_entries())) == after.log_entries()[-1:]


def test_a_snapshot_of_another_version_is_refused() -> None:
    data = state_to_dict(new_series(Rules.preset("classic"), 1))
    data["version"] = SNAPSHOT_VERSION + 1
    with pytest.raises(ValueError, match="snapshot version"):
        state_from_dict(data)


def test_a_snapshot_holding_a_gift_where_a_play_belongs_is_refused() -> None:
    state = _states("classic", 3, 1)[5]
    data = state_to_dict(state)
    data["trick"] = [[0, "give 3C"]]
    with pytest.raises(ValueError):
        state_from_dict(data)


@settings(max_examples=15, deadline=None)
@given(preset=st.sampled_from(sorted(PRESETS)), seed=st.integers(0, 10**9))
def test_every_event_round_trips_through_json(preset: str, seed: int) -> None:
    from engine.snapshot import event_from_dict, event_to_dict

    rng = random.Random(seed)
    state, events = new_series_with_events(Rules.preset(preset, rounds=2), seed)
    kinds = set()
    while not state.is_over:
        for event in events:
            data = json.loads(json.dumps(event_to_dict(event)))
            assert event_from_dict(data) == event
            kinds.add(data["type"])
        state, events = apply(state, rng.choice(generate(state)))
    assert {"round_started", "played", "passed", "trick_won", "went_out",
            "round_ended"} <= kinds


def test_an_unknown_event_type_is_refused() -> None:
    from engine.snapshot import event_from_dict

    with pytest.raises(ValueError, match="unknown event type"):
        event_from_dict({"type": "teleported", "seat": 1})
