"""Literal positions for tests: a real series (``new_series``) with the fields a scenario
needs replaced. A ``State`` is a NamedTuple, so ``_replace`` does it."""

from __future__ import annotations

import random
from typing import Any, Iterable, Sequence

from engine import Play, Rules, State, cards_of, mask_of, new_series, parse_cards
from engine.cards import deck_mask, single_bits


def mask(text: str) -> int:
    """The card mask of space-separated cards: mask("7H 7S"); "" is the empty set."""
    return mask_of(parse_cards(text.split()))


def bits(seats: Iterable[int]) -> int:
    out = 0
    for seat in seats:
        out |= 1 << seat
    return out


def position(
    preset: str = "classic",
    hands: Sequence[str] = ("", "", ""),
    *,
    to_act: int = 0,
    trick: Sequence[tuple[int, str]] = (),
    passed: Iterable[int] = (),
    reversed: bool = False,
    went_out: Sequence[int] = (),
    penalized: Iterable[int] = (),
    discard: str | None = "",
    leader: int | None = None,
    seed: int = 0,
    **options: Any,
) -> State:
    """A play-phase state: ``hands`` gives the seats (and so the player count), ``trick``
    the (seat, play text) already on the table, oldest first. ``discard`` None discards
    every card in no hand and not on the table, for a card-consistent position (what a
    searching AI needs); the default, no discard, suits partial-deck scenarios."""
    rules = Rules.preset(preset, players=len(hands), **options)
    hand_masks = tuple(mask(h) for h in hands)
    plays = tuple((seat, Play.from_str(text)) for seat, text in trick)
    if discard is None:
        used = 0
        for m in (*hand_masks, *(p.mask for _, p in plays)):
            used |= m
        discard_mask = deck_mask(rules.jokers) & ~used
    else:
        discard_mask = mask(discard)
    return new_series(rules, seed)._replace(
        hands=hand_masks, to_act=to_act, trick=plays, passed=bits(passed),
        discard=discard_mask, reversed=reversed, went_out=tuple(went_out),
        penalized=bits(penalized), leader=to_act if leader is None else leader)


def assert_cards_conserved(state: State) -> None:
    """Hands, the current trick and the discard are disjoint and together are the deck."""
    seen = 0
    parts = [(f"hand of seat {s}", h) for s, h in enumerate(state.hands)]
    parts += [(f"play {p} of the trick", p.mask) for _, p in state.trick]
    parts.append(("discard", state.discard))
    for name, mask in parts:
        assert mask & seen == 0, f"{name} holds cards found elsewhere: {cards_of(mask & seen)}"
        seen |= mask
    deck = deck_mask(state.rules.jokers)
    assert seen == deck, (f"missing {cards_of(deck & ~seen)}, "
                          f"extra {cards_of(seen & ~deck)}")


def swap_hidden(state: State, a: int, b: int, rng: random.Random) -> State:
    """Re-deal the cards of seats ``a`` and ``b`` between them, keeping both sizes, so that
    the result differs from the original."""
    pool = single_bits(state.hands[a] | state.hands[b])
    size_a = state.hands[a].bit_count()
    for _ in range(20):
        rng.shuffle(pool)
        new_a = sum(pool[:size_a])
        if new_a != state.hands[a]:
            break
    else:  # swap the lowest card of each
        low_a, low_b = state.hands[a] & -state.hands[a], state.hands[b] & -state.hands[b]
        new_a = state.hands[a] ^ low_a | low_b
    new_b = (state.hands[a] | state.hands[b]) & ~new_a
    hands = list(state.hands)
    hands[a], hands[b] = new_a, new_b
    return state._replace(hands=tuple(hands))
