"""What a seat knows about the hands it cannot see, and hands sampled consistently with it.

Only what the rules really imply is used (a pass is allowed with a playable hand, so
passes prove nothing; what they suggest of a player like the rollouts' is
``inference``'s):

- the hidden cards are the deck less the seat's hand, the table and the discard;
- every other seat holds exactly its public hand size;
- cards this seat gave in this round's exchange and that have not been played since
  are in the receiver's hand;
- a Trou du cul (or Vice-Trou) gives his best cards: if this seat received them, every
  card he kept ranks below the weakest card he gave (in card order: rank, then suit, a
  joker best), so his hand holds only such cards and the cards given back to him.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.cards import mask_of, single_bits
from engine.determinize import hidden_cards
from engine.observe import View


@dataclass(frozen=True, slots=True)
class Knowledge:
    seat: int
    hand: int
    hidden: int  # the cards in the other seats' hands
    sizes: tuple[int, ...]
    pinned: tuple[int, ...]  # per seat: hidden cards known to be in that hand
    allowed: tuple[int, ...]  # per seat: the only hidden cards it may hold


def knowledge_of(view: View) -> Knowledge:
    if view.seat is None:
        raise ValueError("a spectator holds no hand")
    me = view.seat
    hidden = hidden_cards(view)
    n = view.players
    pinned = [0] * n
    allowed = [hidden] * n
    for exchange in view.exchanges:
        if exchange.cards is None:
            continue
        cards = mask_of(exchange.cards)
        if exchange.giver == me:
            pinned[exchange.receiver] |= cards & hidden
        elif exchange.receiver == me and exchange.automatic:
            weakest_given = cards & -cards
            allowed[exchange.giver] &= weakest_given - 1  # every card below it
    for seat in range(n):
        allowed[seat] |= pinned[seat]
    allowed[me] = pinned[me] = 0
    return Knowledge(me, mask_of(view.hand), hidden, view.hand_sizes, tuple(pinned),
                     tuple(allowed))


def sample_hands(k: Knowledge, rng: random.Random) -> list[int]:
    """One assignment of the hidden cards, uniform among those consistent with ``k``."""
    hands = list(k.pinned)
    hands[k.seat] = k.hand
    free = k.hidden
    for mask in k.pinned:
        free &= ~mask
    need = [size - hand.bit_count() for size, hand in zip(k.sizes, hands)]
    need[k.seat] = 0
    # Seats with a restriction choose first among the cards they may hold, the most
    # restricted first (a wider choice must not take a narrower's cards); the others
    # share what is left. With one restricted seat every consistent deal is equally
    # likely; with several, nearly so.
    restricted = sorted((s for s in range(len(hands)) if need[s] and k.allowed[s] != k.hidden),
                        key=lambda s: k.allowed[s].bit_count())
    for seat in restricted:
        pool = single_bits(free & k.allowed[seat])
        if len(pool) < need[seat]:  # cannot happen for a consistent view; stay total
            pool = single_bits(free)
        for bit in rng.sample(pool, need[seat]):
            hands[seat] |= bit
            free ^= bit
        need[seat] = 0
    rest = single_bits(free)
    rng.shuffle(rest)
    i = 0
    for seat, count in enumerate(need):
        for bit in rest[i:i + count]:
            hands[seat] |= bit
        i += count
    return hands
