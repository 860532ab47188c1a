"""Shared helpers for the AI tests: literal positions, random real games, strategies.

Positions come from ``tests/positions.py``; here the discard defaults to every card
that is in no hand and not on the table, so that the position is card-consistent (the
searching levels rebuild full states from a view, and ``knowledge_of`` /
``sample_hands`` derive the hidden cards from the deck).
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any, Iterator, Sequence

from hypothesis import strategies as st

from engine import (
    PRESETS, Action, Phase, Role, Rules, State, apply,
    legal_actions, new_series, observe,
)
from engine.outcome import Exchange
from engine.cards import single_bits
from positions import mask
from rule_strategies import preset_overrides
from positions import position as shared_position

LEVEL_NAMES = ("easy", "normal", "hard", "expert")
PRESET_NAMES = tuple(sorted(PRESETS))
JOKERS = (1 << 52) | (1 << 53)


# --- cards ------------------------------------------------------------------------------


bits_of = single_bits  # one-card masks of a mask, lowest first


def rank_of_bit(bit: int) -> int | None:
    """The rank (0 = the 3 … 12 = the 2) of a one-card mask; None for a joker."""
    index = bit.bit_length() - 1
    return None if index >= 52 else index >> 2


def held_of_rank(hand: int, rank: int) -> int:
    return ((hand >> (4 * rank)) & 15).bit_count()


# --- literal positions --------------------------------------------------------------------


def position(preset: str = "classic", hands: Sequence[str] = ("", "", ""), *,
             discard: str | None = None, **kwargs: Any) -> State:
    """A card-consistent play-phase state of round 1: by default every card in no hand
    and not on the table is discarded (see ``tests/positions.py``)."""
    return shared_position(preset, hands, discard=discard, **kwargs)


def exchange_position(hands: Sequence[str], *, giver: int, receiver: int, count: int,
                      preset: str = "classic", **options: Any) -> State:
    """A round-2 state in the exchange phase: ``giver`` owes ``count`` cards to
    ``receiver`` (the automatic gifts are assumed done and are not recorded)."""
    state = position(preset, hands, to_act=giver, **options)
    n = len(hands)
    roles = [Role.NEUTRE] * n
    roles[giver] = Role.PRESIDENT if count == 2 else Role.VICE_PRESIDENT
    roles[receiver] = Role.TROU if count == 2 else Role.VICE_TROU
    return state._replace(round_no=2, phase=Phase.EXCHANGE, roles=tuple(roles),
                          pending=((giver, receiver, count),), leader=receiver)


def round_two_position(hands: Sequence[str], *, roles: Sequence[Role],
                       exchanges: Sequence[tuple[int, int, str, bool]], to_act: int,
                       preset: str = "classic", **options: Any) -> State:
    """A round-2 play-phase state after the exchange: ``exchanges`` are
    (giver, receiver, cards, automatic); everything not in a hand is discarded."""
    state = position(preset, hands, to_act=to_act, **options)
    return state._replace(
        round_no=2, roles=tuple(roles),
        exchanges=tuple(Exchange(g, r, mask(c), automatic=a) for g, r, c, a in exchanges))


# --- random real games -----------------------------------------------------------------


def random_action(state: State, rng: random.Random, pass_bias: float = 0.2) -> Action:
    actions = list(legal_actions(state))
    plays = [a for a in actions if a]
    if len(plays) < len(actions) and (not plays or rng.random() < pass_bias):
        return next(a for a in actions if not a)
    return rng.choice(plays)


def easy_action(state: State) -> Action:
    """Easy's choice (the first non-pass legal action), without going through an AI."""
    actions = list(legal_actions(state))
    return next((a for a in actions if a), actions[0])


def drive(rules: Rules, seed: int, choice_seed: int, steps: int, *,
          max_round: int | None = None) -> State:
    """A state reached by ``steps`` random legal actions, never an ended series and never
    beyond round ``max_round``: the walk stops at the last such state."""
    state = new_series(rules, seed)
    rng = random.Random(choice_seed)
    for _ in range(steps):
        nxt, _ = apply(state, random_action(state, rng))
        if nxt.is_over or (max_round is not None and nxt.round_no > max_round):
            break
        state = nxt
    return state


def drive_to_round(rules: Rules, seed: int, choice_seed: int, round_no: int,
                   steps: int) -> State:
    """Play with random legal actions until round ``round_no`` starts, then ``steps``
    more actions at most (stopping before that round ends)."""
    state = new_series(rules, seed)
    rng = random.Random(choice_seed)
    while state.round_no < round_no:
        state, _ = apply(state, random_action(state, rng))
        assert not state.is_over
    for _ in range(steps):
        nxt, _ = apply(state, random_action(state, rng))
        if nxt.is_over or nxt.round_no != round_no:
            break
        state = nxt
    return state


def play_round_one_with_easy(rules: Rules, seed: int) -> State:
    """Round 1 played out by Easy at every seat: the state at round 2's first decision."""
    state = new_series(rules, seed)
    while state.round_no == 1:
        state, _ = apply(state, easy_action(state))
    return state


def other_seats_in(state: State, me: int) -> list[int]:
    return [s for s in range(state.players) if s != me and state.hands[s]]


# --- hypothesis strategies --------------------------------------------------------------


def rules_strategy(min_rounds: int = 1, max_rounds: int = 2,
                   exchange: bool | None = None) -> st.SearchStrategy[Rules]:
    """A preset with random option overrides (see ``tests/rule_strategies.py``)."""
    return preset_overrides(min_rounds, max_rounds, exchange).map(
        lambda t: Rules.preset(t[0], **t[1]))


seeds = st.integers(0, 2**32 - 1)


# --- enumeration of consistent deals (small positions only) ------------------------------


def consistent_deals(seat: int, hand: int, hidden: int, sizes: Sequence[int],
                     pinned: Sequence[int], allowed: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every assignment of ``hidden`` to the other seats with the given sizes, each seat
    holding its pinned cards and only allowed cards. Exponential: tiny positions only."""
    others = [s for s in range(len(sizes)) if s != seat]

    def rec(i: int, left: int, acc: list[int]) -> Iterator[tuple[int, ...]]:
        if i == len(others):
            if left == 0:
                hands = list(acc)
                yield tuple(hands)
            return
        s = others[i]
        for combo in combinations(bits_of(left), sizes[s]):
            h = sum(combo)
            if h & pinned[s] != pinned[s] or h & ~allowed[s]:
                continue
            acc[s] = h
            yield from rec(i + 1, left & ~h, acc)
        acc[s] = 0

    start = [0] * len(sizes)
    start[seat] = hand
    yield from rec(0, hidden, start)


def view_of_acting_seat(state: State):  # type: ignore[no-untyped-def]
    return observe(state, state.to_act)
