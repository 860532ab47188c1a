"""Cards, ranks, suits and the bitmask that holds a set of cards.

A set of cards is an ``int``: bit ``rank * 4 + suit`` for the 52 natural cards
(rank 0 is the 3, rank 12 is the 2, in the normal order), bits 52 and 53 for the
two jokers. Hands, the table and the discard are such masks, so a hand copy is
an int copy and "is this card in hand" is one ``&``.

Canonical text: rank ``3 4 5 6 7 8 9 T J Q K A 2`` then suit ``C D H S``
(``7H``, ``TS``, ``2C``); the jokers are ``JR`` (red, the first joker of the deck)
and ``JB`` (black, the second). Parsing also accepts ``10`` for ``T``, lower
case, and the suit symbols ♣ ♦ ♥ ♠.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable

from engine.errors import DuplicateCard, UnknownCard

RANK_CHARS = "3456789TJQKA2"
SUIT_CHARS = "CDHS"
NATURAL_CARDS = 52
JOKER_RED = 52
JOKER_BLACK = 53
JOKER_BITS = (1 << JOKER_RED) | (1 << JOKER_BLACK)
NATURAL_BITS = (1 << NATURAL_CARDS) - 1
RANKS = 13


class Rank(IntEnum):
    """Ranks in the normal order, weakest first: THREE < … < ACE < TWO."""

    THREE = 0
    FOUR = 1
    FIVE = 2
    SIX = 3
    SEVEN = 4
    EIGHT = 5
    NINE = 6
    TEN = 7
    JACK = 8
    QUEEN = 9
    KING = 10
    ACE = 11
    TWO = 12

    @property
    def char(self) -> str:
        return RANK_CHARS[self]


class Suit(IntEnum):
    """Suits have no value; they matter for straights and the 3 of clubs."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        return SUIT_CHARS[self]


class Card:
    """One card. The 54 instances are created once; compare them with ``==`` or ``is``."""

    __slots__ = ("index", "rank", "suit", "_text")

    index: int
    rank: Rank | None
    suit: Suit | None

    def __init__(self, index: int) -> None:  # only called to build ALL_CARDS
        self.index = index
        if index < NATURAL_CARDS:
            self.rank, self.suit = Rank(index >> 2), Suit(index & 3)
            self._text = RANK_CHARS[index >> 2] + SUIT_CHARS[index & 3]
        else:
            self.rank = self.suit = None
            self._text = "JR" if index == JOKER_RED else "JB"

    @property
    def is_joker(self) -> bool:
        return self.rank is None

    @property
    def bit(self) -> int:
        return 1 << self.index

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Card({self._text!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (card_at, (self.index,))

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    @classmethod
    def from_str(cls, text: str) -> Card:
        return parse_card(text)


ALL_CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(54))
_BY_TEXT = {str(c): c for c in ALL_CARDS}
_SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}


def card_at(index: int) -> Card:
    return ALL_CARDS[index]


def parse_card(text: str) -> Card:
    card = _BY_TEXT.get(text)  # canonical text: the common case, one lookup
    if card is not None:
        return card
    raw = text.strip().upper()
    if raw[-1:] in _SUIT_SYMBOLS:
        raw = raw[:-1] + _SUIT_SYMBOLS[raw[-1]]
    if raw.startswith("10"):
        raw = "T" + raw[2:]
    card = _BY_TEXT.get(raw)
    if card is None:
        raise UnknownCard(f"unknown card {text!r}: expected rank 3-9/T/J/Q/K/A/2 and suit C/D/H/S, or JR/JB")
    return card


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse card texts, rejecting a card named twice."""
    cards = tuple(parse_card(t) for t in texts)
    seen = 0
    for card in cards:
        if seen & card.bit:
            raise DuplicateCard(f"card {card} is named twice")
        seen |= card.bit
    return cards


def deck_mask(jokers: int) -> int:
    """The full deck: 52 cards plus the first ``jokers`` jokers."""
    return (1 << (NATURAL_CARDS + jokers)) - 1  # jokers are the bits right after the 52


def mask_of(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


# The cards of each byte value at each of the seven byte positions of a mask: a view, a
# snapshot and an AI's every decision list cards, and eight bits at a time is several
# times faster than one.
_BY_BYTE: tuple[tuple[tuple[Card, ...], ...], ...] = tuple(
    tuple(tuple(ALL_CARDS[8 * position + bit] for bit in range(8)
                if value >> bit & 1 and 8 * position + bit < len(ALL_CARDS))
          for value in range(256))
    for position in range(-(-len(ALL_CARDS) // 8)))


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask in canonical order: by rank (normal order), suit, jokers last."""
    out: tuple[Card, ...] = ()
    position = 0
    while mask:
        if mask & 255:
            out += _BY_BYTE[position][mask & 255]
        mask >>= 8
        position += 1
    return out


def format_cards(mask: int) -> str:
    return " ".join(str(c) for c in cards_of(mask))


def single_bits(mask: int) -> list[int]:
    """The one-card masks of ``mask``, lowest first (canonical card order)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def highest_cards(mask: int, count: int) -> int:
    """The ``count`` best cards of ``mask`` in the normal order (jokers best).

    Between cards of one rank the higher suit bit goes first (S, H, D, C): suits
    have no value, this only makes the choice deterministic.
    """
    out = 0
    for _ in range(count):
        if not mask:
            break
        top = 1 << (mask.bit_length() - 1)
        out |= top
        mask ^= top
    return out


def rank_nibble(mask: int, rank: int) -> int:
    """The four suit bits of ``rank`` in ``mask``."""
    return (mask >> (rank << 2)) & 15
