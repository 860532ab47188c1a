"""The Easy and Normal policies, written on card masks so that searches can roll out
with them at engine speed (and ``holding_choice``, Normal's follow as Expert's rollouts
play the seat itself early in a round).

Easy plays the first non-pass action of the engine's documented order: the weakest
single when leading (the weakest rank in the order in force, natural cards before
jokers), the weakest fitting play when following; it passes only when nothing fits.
As a giver it gives back its lowest cards.

Normal keeps its power — the strongest rank in force (2s, or 3s during a revolution),
jokers and quads — to take the lead back when no other play fits, never breaks a
pair, triple, quad or straight while an unbroken play exists, leads the weakest
whole group, passes only when nothing fits, and as a giver gives back low cards of
different ranks, never a pair.
"""

from __future__ import annotations

from typing import Sequence

from engine.cards import JOKER_BITS, RANKS
from engine.plays import PASS, Action, Give, Play, PlayKind

CLEAN, POWER, BREAK = 0, 1, 2  # what a play costs the hand, cheapest first
_GROUP, _STRAIGHT, _JOKER = PlayKind.GROUP, PlayKind.STRAIGHT, PlayKind.JOKER


def easy_choice(legal: Sequence[Action]) -> Action:
    for action in legal:
        if action:
            return action
    return legal[0]


def rank_counts(hand: int) -> list[int]:
    return [((hand >> (4 * r)) & 15).bit_count() for r in range(RANKS)]


def power_rank(reversed_: bool) -> int:
    """The strongest rank in the order in force: the 2s, or the 3s in a revolution."""
    return 0 if reversed_ else RANKS - 1


def play_cost(play: Play, hand: int, power_rank: int) -> int:
    """What ``play`` costs ``hand``: CLEAN, POWER (spends a 2 / 3 in revolution, a joker
    or a quad, alone or inside a straight) or BREAK (leaves cards of a rank it uses behind, or takes a natural of a
    pair or more into a straight)."""
    if play.kind is _JOKER:
        return POWER
    if play.kind is _STRAIGHT:
        for r in range(max(play.rank, 0), min(play.high, RANKS - 1) + 1):  # (a joker past an end)
            if (play.mask >> (4 * r)) & 15 and ((hand >> (4 * r)) & 15).bit_count() > 1:
                return BREAK
        spends = play.mask & JOKER_BITS or (play.mask >> (4 * power_rank)) & 15
        return POWER if spends else CLEAN
    naturals = play.size - (play.mask & JOKER_BITS).bit_count()
    if naturals < ((hand >> (4 * play.rank)) & 15).bit_count():
        return BREAK
    if play.rank == power_rank or play.size >= 4 or play.mask & JOKER_BITS:
        return POWER
    return CLEAN


def weak_strength(play: Play, reversed_: bool) -> int:
    """How strong the play's weakest card is in the order in force (groups: their rank)."""
    if play.kind is _JOKER:
        return RANKS
    if reversed_:
        return RANKS - 1 - (play.high if play.kind is _STRAIGHT else play.rank)
    return play.rank


def normal_choice(hand: int, legal: Sequence[Play], reversed_: bool, following: bool) -> Play:
    """Normal's play among ``legal`` (the engine's list for this hand; ``following`` a
    play, not leading): the cheapest (clean, then power, then breaking), then the
    weakest, then the most cards."""
    power = power_rank(reversed_)
    best: Play | None = None
    best_key = (3, 0, 0)
    for play in legal:
        if play is PASS:  # (plays are interned: the only pass; faster than Play.__bool__)
            continue
        cost = play_cost(play, hand, power)
        if following and cost == CLEAN:
            return play  # same size, weakest first: the first clean play is the answer
        key = (cost, weak_strength(play, reversed_), -play.size)
        if key < best_key:
            best, best_key = play, key
    # Passing with a play in hand loses the lead for nothing: measured against Easy,
    # a Normal that passed rather than spend a 2 or break a pair lost 0.8 points a
    # round, one that always plays its cheapest play wins 0.4.
    return PASS if best is None else best


def holding_choice(hand: int, legal: Sequence[Play], reversed_: bool) -> Play:
    """Normal's follow, but a pass where that would cost (spend power or break a group):
    a hand still large gains by keeping its power and groups for later. Expert's
    rollouts play the seat itself this way early in the round (docs/decisions/ai-0009-*)."""
    play = normal_choice(hand, legal, reversed_, True)
    if play is PASS or play_cost(play, hand, power_rank(reversed_)) == CLEAN:
        return play
    return PASS  # (a follow may always pass: engine.legal)


def normal_gift(hand: int, count: int) -> Give:
    """Low cards of different ranks, singletons first, never a pair (003's advice);
    jokers and 2s only if nothing else is left."""
    counts = rank_counts(hand)
    chosen = 0
    taken = 0
    # pass 1: singletons from the weakest rank up; pass 2: any rank not yet used
    for singles_only in (True, False):
        for r in range(RANKS - 1):  # never a 2 while anything else remains
            nib = (hand >> (4 * r)) & 15
            if not nib or (singles_only and counts[r] != 1) or (chosen >> (4 * r)) & 15:
                continue
            chosen |= (nib & -nib) << (4 * r)
            taken += 1
            if taken == count:
                return Give(chosen)
    rest = hand & ~chosen
    while taken < count:  # only 2s, jokers or ranks already used remain: lowest first
        low = rest & -rest
        chosen |= low
        rest ^= low
        taken += 1
    return Give(chosen)
