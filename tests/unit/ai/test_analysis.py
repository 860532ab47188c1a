"""What a level weighed (``workers.ai.analyse``, for hints and reviews): Hard and Expert
report, per candidate, the round's points they expect and the simulations behind it;
their choice is ``decide``'s, the best they weighed; and it reads nothing a seat cannot
see (two positions that differ only in hidden cards are weighed alike)."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import ALL_CARDS, Play, Rules, View, observe
from workers.ai import LEVELS, Budget, analyse, decide

from aihelpers import drive, other_seats_in, rules_strategy, seeds
from positions import swap_hidden
from test_levels import PROPS

BUDGET = Budget(simulations=60)


def _position(seed: int) -> tuple[View, int]:
    """A first-round position where the seat to act has a real choice."""
    rules = Rules.preset("classic", players=4)
    for steps in range(0, 40):
        state = drive(rules, seed, seed + 1, steps, max_round=1)
        view = observe(state, state.to_act)
        if len(view.legal_actions) >= 4:
            return view, state.to_act
    raise AssertionError("no position with a choice")


@pytest.mark.parametrize("level", ["hard", "expert"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_searching_level_reports_what_it_weighed_and_chooses_the_best(
        level: str, seed: int) -> None:
    view, _ = _position(seed)
    action, weighed = analyse(view, level, seed=seed, budget=BUDGET)
    assert action == decide(view, level, seed=seed, budget=BUDGET)
    assert len(weighed) >= 2 and action in {w.action for w in weighed}
    assert all(w.action in view.legal_actions for w in weighed)
    players = 4
    for w in weighed:
        assert w.simulations >= 1 and 0 <= w.expected_points <= players
    assert sum(w.simulations for w in weighed) <= (BUDGET.simulations or 0)
    chosen = next(w for w in weighed if w.action == action)
    if level == "hard":  # (Expert's racing drops candidates early: best among those kept)
        assert chosen.expected_points == max(w.expected_points for w in weighed)
        assert {w.simulations for w in weighed} == {chosen.simulations}  # the same deals


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_the_heuristic_levels_weigh_nothing(level: str) -> None:
    view, _ = _position(4)
    action, weighed = analyse(view, level)
    assert weighed == () and action == decide(view, level)


@settings(PROPS, max_examples=25)
@given(rules=rules_strategy(max_rounds=2), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 60), ai_seed=st.integers(0, 2**31))
def test_two_positions_that_differ_only_in_hidden_cards_are_weighed_alike(
        rules: Rules, seed: int, choice_seed: int, steps: int, ai_seed: int) -> None:
    state = drive(rules, seed, choice_seed, steps, max_round=1)
    me = state.to_act
    others = other_seats_in(state, me)
    assume(len(others) >= 2)
    rng = random.Random(ai_seed)
    a, b = rng.sample(others, 2)
    swapped = swap_hidden(state, a, b, rng)
    view, other_view = observe(state, me), observe(swapped, me)
    for level in LEVELS:
        assert analyse(view, level, seed=ai_seed, budget=Budget(simulations=12)) == \
            analyse(other_view, level, seed=ai_seed, budget=Budget(simulations=12))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_an_action_asked_for_is_weighed_and_named_by_its_own_text(seed: int) -> None:
    """A review asks Expert to weigh the play the seat took, even one it would never
    have considered (the weakest by its ranking), under that play's exact text."""
    view, _ = _position(seed)
    _, plain = analyse(view, "expert", seed=seed, budget=BUDGET)
    unweighed = [a for a in view.legal_actions if a not in {w.action for w in plain}]
    assert unweighed  # (suits that do not matter: one play of a rank stands for the others)
    for taken in unweighed:
        action, weighed = analyse(view, "expert", seed=seed, budget=BUDGET, also=taken)
        assert taken in {w.action for w in weighed}
        assert action in {w.action for w in weighed}


def test_an_action_asked_for_must_be_legal() -> None:
    view, _ = _position(5)
    not_held = next(card for card in ALL_CARDS if card not in view.hand)
    with pytest.raises(ValueError):
        analyse(view, "expert", seed=1, budget=BUDGET, also=Play.from_cards([not_held]))
