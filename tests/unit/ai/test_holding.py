"""Expert's rollouts play the seat itself holding early in the round
(``heuristics.holding_choice``, ``search.rollout``'s ``hold``): a follow that would spend
power or break a group becomes a pass while the hand is large."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PASS, Play, Rules
from engine.game import generate
from workers.ai.heuristics import CLEAN, holding_choice, normal_choice, play_cost
from workers.ai.search import rollout

from aihelpers import drive, position, rules_strategy, seeds

PROPS = settings(deadline=None, derandomize=True, database=None, max_examples=150)


@pytest.mark.parametrize("hand, options, reversed_, trick, expected", [
    # Normal spends its 2 on the king; holding passes
    ("4C 6D 8H 9S 2S", {}, False, "KS", "pass"),
    # Normal breaks its aces; holding passes
    ("AC AD 4H 6S", {}, False, "KS", "pass"),
    # a clean ace: the same play as Normal's
    ("AC 2D 4H 6S", {}, False, "KS", "AC"),
    # revolution: 3s are the power, the clean 5 goes on the 8
    ("3C 5D 9H 9S", {"revolution": True}, True, "8S", "5D"),
    ("3C 9H 9S", {"revolution": True}, True, "8S", "pass"),
    # the joker is power too
    ("4C 6D JR", {"jokers": 1}, False, "KS", "pass"),
])
def test_holding_on_literal_hands(hand: str, options: dict[str, object], reversed_: bool,
                                  trick: str, expected: str) -> None:
    state = position("classic", [hand, "4D", "5C"], to_act=0, trick=[(1, trick)],
                     reversed=reversed_, **options)
    legal = generate(state)
    choice = holding_choice(state.hands[0], legal, reversed_)  # type: ignore[arg-type]
    assert choice is (PASS if expected == "pass" else Play.from_str(expected))


@PROPS
@given(rules=rules_strategy(max_rounds=1), seed=seeds, choice_seed=seeds,
       steps=st.integers(1, 200))
def test_holding_is_normal_unless_normal_pays_to_follow(rules: Rules, seed: int,
                                                         choice_seed: int, steps: int) -> None:
    state = drive(rules, seed, choice_seed, steps)
    if state.to_act < 0 or not state.trick:
        return
    hand, legal = state.hands[state.to_act], generate(state)
    normal = normal_choice(hand, legal, state.reversed, True)  # type: ignore[arg-type]
    held = holding_choice(hand, legal, state.reversed)  # type: ignore[arg-type]
    power = 0 if state.reversed else 12
    if normal is PASS or play_cost(normal, hand, power) == CLEAN:
        assert held is normal
    else:
        assert held is PASS


@PROPS
@given(rules=rules_strategy(max_rounds=1), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 200))
def test_a_hold_above_the_hand_is_normal_play(rules: Rules, seed: int, choice_seed: int,
                                              steps: int) -> None:
    state = drive(rules, seed, choice_seed, steps)
    if state.to_act < 0:
        return
    me = state.to_act
    held = state.hands[me].bit_count()
    assert rollout(state, me, hold=held) == rollout(state, me)


def test_a_large_hand_that_holds_its_two_goes_out_first() -> None:
    # Seat 0 (ten cards) follows the king of spades. Spending its 2 as Normal does, it
    # ends last; holding it (more than nine cards) it passes and ends first. (A deal
    # found among random ones where the two lines part.)
    state = position("classic", ["4C 5H 6S 7C 9C TC JC KC KD 2S", "3D 5S 7S 8C 8H AH",
                                 "5C 5D 8S 9S TS KH"],
                     to_act=0, trick=[(2, "KS")], discard=None, rounds=1)
    assert rollout(state, 0) == 1
    assert rollout(state, 0, hold=9) == 3
    assert rollout(state, 0, hold=10) == 1  # (ten cards: not more than the hold)
