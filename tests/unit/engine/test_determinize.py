"""state_from_view: a view plus the true hidden hands gives back the true state."""

from __future__ import annotations

import random

import pytest

from engine import PRESETS, Rules, apply, new_series, observe
from engine.determinize import hidden_cards, state_from_view
from engine.game import generate
from engine.state import State


def _random_position(preset: str, seed: int) -> State:
    rng = random.Random(seed)
    state = new_series(Rules.preset(preset, rounds=2), seed)
    for _ in range(rng.randrange(0, 120)):
        nxt, _ = apply(state, rng.choice(generate(state)))
        if nxt.is_over:
            break
        state = nxt
    return state


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("seed", range(8))
def test_true_hands_rebuild_the_state(preset: str, seed: int) -> None:
    state = _random_position(preset, seed)
    view = observe(state, state.to_act)
    rebuilt = state_from_view(view, state.hands)
    # what a view cannot know (seed, log, exchanged masks) and the round-end cut-off differ
    assert rebuilt.rules == state.rules.with_options(rounds=state.round_no)
    same = rebuilt._replace(rules=state.rules, seed=state.seed, exchanges=state.exchanges,
                            log=state.log, past_logs=state.past_logs)
    assert same == state


def test_hidden_cards_are_the_other_hands() -> None:
    state = _random_position("full", 3)
    view = observe(state, 1)
    others = 0
    for seat, hand in enumerate(state.hands):
        if seat != 1:
            others |= hand
    assert hidden_cards(view) == others


@pytest.mark.parametrize("change", ["swap_own", "wrong_size", "overlap", "spectator"])
def test_inconsistent_hands_are_rejected(change: str) -> None:
    state = _random_position("classic", 4)
    view = observe(state, 0)
    hands = list(state.hands)
    if change == "swap_own":  # trade one card between seat 0 and seat 1
        a, b = hands[0] & -hands[0], hands[1] & -hands[1]
        hands[0], hands[1] = hands[0] ^ a | b, hands[1] ^ b | a
    elif change == "wrong_size":
        low = hands[1] & -hands[1]
        hands[1] ^= low
        hands[2] |= low
    elif change == "overlap":
        hands[2] |= hands[1] & -hands[1]
    with pytest.raises(ValueError):
        state_from_view(observe(state, None) if change == "spectator" else view, hands)
