"""The exact endgame (``workers.ai.endgame``): the seat's best line against Normal play on
a known deal, checked on literal positions and against a search that tries everything."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import asdict

import pytest
from aihelpers import PRESET_NAMES, position
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules, State, apply_unchecked, new_series, observe
from engine.game import generate
from workers.ai import levels, search
from workers.ai.budget import Budget
from workers.ai.endgame import best_points, normal_step, points
from workers.ai.search import ENDGAME_STEPS, rollout, weigh


def test_keeping_the_two_to_take_the_lead_back_goes_out_first() -> None:
    # Normal leads its 5: the 6 goes out on it and the seat is second at best. Led first,
    # the 2 takes the trick and the 5 ends the seat's hand: first.
    state = position("classic", ["5C 2C", "6C", "7C 8C"], discard=None, rounds=1)
    assert rollout(state, 0) < 3
    assert best_points(state, 0, 1_000) == 3


def test_following_the_search_weighs_every_answer() -> None:
    # Following: the search weighs passing and each play, not Normal's choice alone.
    state = position("classic", ["5C 2C", "6C 9C", "7C 4C"], discard=None, rounds=1,
                     to_act=0, trick=[(2, "4C")], leader=2)
    best = best_points(state, 0, 1_000)
    assert best is not None and best >= rollout(state, 0)
    assert best == _exhaustive(state, 0)


def test_it_gives_up_past_its_steps() -> None:
    state = position("classic", ["5C 2C 9D JH", "6C 9C QS", "7C 4C KH"], discard=None,
                     rounds=1)
    assert best_points(state, 0, 1) is None
    assert best_points(state, 0, 100_000) == _exhaustive(state, 0)


def _exhaustive(state: State, me: int) -> int:
    """Every legal action of the seat tried, each suit apart, nothing cut short."""
    while state.to_act >= 0 and state.hands[me] and state.to_act != me:
        state = normal_step(state)
    if state.to_act < 0 or not state.hands[me]:
        return points(state, me)
    return max(_exhaustive(apply_unchecked(state, a), me) for a in generate(state))


def _late_position(preset: str, seed: int, cards: int) -> tuple[State, int] | None:
    """A Normal-played round of ``preset`` stopped when the seat to act first holds
    ``cards`` cards or fewer."""
    state = new_series(Rules.preset(preset, rounds=1), seed)
    while state.to_act >= 0:
        seat = state.to_act
        if state.phase.value == "play" and 0 < state.hands[seat].bit_count() <= cards:
            return state, seat
        state = normal_step(state) if state.phase.value == "play" else _gift(state)
    return None


def _gift(state: State) -> State:
    return apply_unchecked(state, generate(state)[0])


def _late_positions(preset: str, seed: int, cards: int,
                    count: int) -> Iterator[tuple[State, int]]:
    """``_late_position`` in ``count`` random rounds (each has one)."""
    rng = random.Random(seed)
    for _ in range(count):
        found = _late_position(preset, rng.randrange(10**6), cards)
        assert found is not None
        yield found


@settings(max_examples=40, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), seed=st.integers(0, 10_000),
       cards=st.integers(1, 3))
def test_the_search_finds_the_best_line_and_never_less_than_normal(
        preset: str, seed: int, cards: int) -> None:
    found = _late_position(preset, seed, cards)
    if found is None:
        return
    state, me = found
    before = tuple(state)
    best = best_points(state, me, 20_000)
    assert best is not None
    assert best == _exhaustive(state, me)
    assert best >= rollout(state, me)
    if best_points(state, me, ENDGAME_STEPS) is not None:
        assert rollout(state, me, endgame=cards) == best
    assert tuple(state) == before  # (they play on copies of their own, not the caller's)


def test_rollouts_with_the_endgame_score_at_least_normal_ones() -> None:
    for state, me in _late_positions("cardverse", 1, 5, 20):
        assert rollout(state, me, endgame=5) >= rollout(state, me)


def test_the_search_weighs_each_candidate_at_least_as_high_with_the_endgame() -> None:
    # The same seed samples the same deals (rollouts draw nothing at random), so each
    # candidate's line with the endgame is the Normal line or better, deal by deal.
    raised = 0
    for state, me in _late_positions("cardverse", 2, 6, 15):
        view = observe(state, me)
        if len(view.legal_actions) < 2:
            continue
        plain = weigh(view, 3, Budget(simulations=60), endgame=0)[1]
        solved = weigh(view, 3, Budget(simulations=60), endgame=6)[1]
        assert [w.action for w in plain] == [w.action for w in solved]
        for a, b in zip(plain, solved):
            assert b.simulations == a.simulations
            assert b.expected_points >= a.expected_points
            raised += b.expected_points > a.expected_points
    assert raised > 0


def test_a_search_that_gives_up_is_tried_again_only_with_fewer_cards(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def gives_up(state: State, me: int, steps: int) -> None:
        asked.append(state.hands[me].bit_count())

    monkeypatch.setattr(search, "best_points", gives_up)
    spared = 0  # the seat's turns at the same hand size as a search that gave up
    for state, me in _late_positions("cardverse", 4, 6, 20):
        asked.clear()
        assert rollout(state, me, endgame=6) == rollout(state, me)  # Normal's line, then
        assert asked == sorted(set(asked), reverse=True)  # each hand size once, smaller
        spared += _turns_holding_at_most(state, me, 6) - len(asked)
    assert spared > 0  # (the seat did pass at some size: the test can tell)


def _turns_holding_at_most(state: State, me: int, cards: int) -> int:
    turns = 0
    while state.to_act >= 0 and state.hands[me]:
        turns += state.to_act == me and state.hands[me].bit_count() <= cards
        state = normal_step(state)
    return turns


def test_a_rollout_gives_its_endgame_search_the_steps_it_is_given() -> None:
    # Five seats make endgame searches longer: on a position the default steps give up on
    # (the rollout then plays a worse line), more steps settle it and the rollout plays
    # the settled line.
    for state, me in _late_positions("uecda", 5, 5, 300):
        held = state.hands[me].bit_count()
        if best_points(state, me, ENDGAME_STEPS) is None:
            best = best_points(state, me, 1_200)
            if best is not None and rollout(state, me, endgame=held) < best:
                break
    else:
        pytest.fail("no position needed more than the default steps")
    assert rollout(state, me, endgame=held, steps=1_200) == best


def test_expert_at_five_seats_searches_with_its_many_seats_settings(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[dict[str, object]] = []

    def weighs(view: object, seed: int, budget: Budget, **settings: object) -> object:
        asked.append(settings)
        return None, ()

    monkeypatch.setattr(levels, "weigh", weighs)
    for preset, level in [("cardverse", "expert"), ("uecda", "expert"), ("uecda", "hard")]:
        state = new_series(Rules.preset(preset, rounds=1), 1)
        levels.analyse(observe(state, state.to_act), level)
    four, five, hard = ({k: v for k, v in s.items() if k != "also"} for s in asked)
    assert four == asdict(levels.SEARCHES["expert"])
    assert five == asdict(levels.MANY_SEATS["expert"]) != four
    assert (five["endgame"], five["steps"]) == (5, 1_200)
    assert hard == asdict(levels.SEARCHES["hard"])
