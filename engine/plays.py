"""Actions: plays (groups, the single joker, straights, pass) and exchange gifts.

Canonical text, which round-trips through ``str()`` and ``parse_action()``:

- ``pass`` — the pass, the only falsy play;
- a group: its cards separated by spaces, natural cards by suit then jokers:
  ``7C 7H``, ``9D 9H 9S JR`` (a joker stands in for the rank of the naturals); under
  the suit lock a joker also names the card it stands for, ``7H JR=7S`` (its suit
  counts for the lock); four naturals and a joker make a 5-card group;
- the single joker: ``JR`` or ``JB``;
- a straight: its cards in rank order joined by ``-``, a joker at the place it
  fills: ``5H-6H-7H``, ``5H-JR-7H`` (the joker is the 6);
- an exchange gift: ``give`` then the cards: ``give 3C 5D``.

Plays are interned: each distinct play exists once, so ``==`` and ``hash`` are
identity, which keeps the engine's hot loops in C.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from enum import IntEnum
from typing import Iterable, Union

from engine.cards import (
    ALL_CARDS, JOKER_BITS, NATURAL_BITS, RANKS, Card, cards_of, format_cards, mask_of,
    parse_card, parse_cards,
)
from engine.errors import NotAPlay


class PlayKind(IntEnum):
    PASS = 0
    GROUP = 1
    JOKER = 2  # the single joker: strongest play in either order
    STRAIGHT = 3


class Play:
    """An immutable play. Build one with ``Play.from_str`` or ``Play.from_cards``."""

    __slots__ = ("kind", "mask", "rank", "high", "size", "suit", "suits", "_text",
                 "__weakref__")

    kind: PlayKind
    mask: int  # the cards played
    rank: int  # group: its rank; straight: its lowest rank (-1: a joker below the 3);
    # joker: 13; pass: -1
    high: int  # straight: its highest rank (13: a joker above the 2); otherwise equal to rank
    size: int  # cards played
    suit: int  # straight: its suit; otherwise -1
    # The suits the play occupies (bit per suit), for the suit lock: a group's naturals and
    # the suits its jokers stand for when named (a 5-card group: 31, the joker's own row);
    # a straight's one suit; the single joker and the pass: 0.
    suits: int
    _text: str

    PASS: Play

    def __bool__(self) -> bool:
        return self.size > 0

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Play({self._text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Play.from_str, (self._text,))

    @property
    def cards(self) -> tuple[Card, ...]:
        return cards_of(self.mask)

    @property
    def jokers(self) -> int:
        return (self.mask & JOKER_BITS).bit_count()

    @property
    def is_group(self) -> bool:
        return self.kind == PlayKind.GROUP

    @property
    def is_straight(self) -> bool:
        return self.kind == PlayKind.STRAIGHT

    @property
    def names_joker_suits(self) -> bool:
        """Whether a group's every joker names the card it stands for (``JR=7S``); true of
        a group without jokers and of a 5-card group, whose joker has its own row."""
        return self.suits.bit_count() == self.size or self.suits == FIVE_SUITS

    @classmethod
    def from_str(cls, text: str) -> Play:
        raw = text.strip()
        if raw.lower() == "pass":
            return PASS
        if "-" in raw:
            return straight_from_cards(parse_cards(p for p in raw.split("-") if p.strip()))
        if "=" in raw:
            return _group_naming_jokers(_split_cards(raw))
        return cls.from_cards(parse_cards(_split_cards(raw)))

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> Play:
        """The play these cards make: a group if they can be one, else a straight in the
        order given (jokers at their places), else a straight of the sorted naturals."""
        cards = tuple(cards)
        if not cards:
            raise NotAPlay("a play needs at least one card; to pass, send 'pass'")
        naturals = [c for c in cards if c.rank is not None]
        if len(cards) == 1 and not naturals:
            return joker_play(cards[0].bit)
        if naturals and (len(cards) <= 4 or (len(cards) == 5 and len(naturals) == 4)) \
                and all(c.rank == naturals[0].rank for c in naturals):
            return group_play(int(naturals[0].rank), mask_of(cards))  # type: ignore[arg-type]
        if len(cards) >= 3:
            try:
                return straight_from_cards(cards)
            except NotAPlay:
                if len(naturals) == len(cards):
                    return straight_from_cards(sorted(cards))
                raise
        raise NotAPlay(f"{' '.join(map(str, cards))} is neither a group of one rank nor a straight")


def _split_cards(raw: str) -> list[str]:
    return [p for p in re.split(r"[\s,]+", raw) if p]


def _group_naming_jokers(parts: list[str]) -> Play:
    """``7H JR=7S``: a group whose jokers name the cards they stand for."""
    named = [p.split("=", 1) if "=" in p else (p, "") for p in parts]
    cards = parse_cards(card for card, _ in named)
    stand_ins = [(card, parse_card(text)) for card, (_, text) in zip(cards, named) if text]
    if any(not joker.is_joker or card.is_joker for joker, card in stand_ins):
        raise NotAPlay("only a joker names the card it stands for: JR=7S")
    naturals = [c for c in cards if not c.is_joker]
    ranks = {c.rank for c in naturals} | {c.rank for _, c in stand_ins}
    jsuits = natural_suits = 0
    for _, card in stand_ins:
        jsuits |= 1 << (card.index & 3)
    for card in naturals:
        natural_suits |= 1 << (card.index & 3)
    if len(ranks) != 1 or not naturals or jsuits & natural_suits \
            or jsuits.bit_count() != len(stand_ins) or len(stand_ins) != len(cards) - len(naturals):
        raise NotAPlay(f"{' '.join(parts)} is not a group: jokers name free cards of its rank")
    return group_play(int(naturals[0].rank), mask_of(cards), jsuits)  # type: ignore[arg-type]


_GROUP, _STRAIGHT = PlayKind.GROUP, PlayKind.STRAIGHT  # (faster than through the Enum)
_INTERNED: dict[tuple[int, ...], Play] = {}
FIVE_SUITS = 31  # a 5-card group's suits: the four, and the joker's own row (UECda)


def _intern(kind: PlayKind, mask: int, rank: int, high: int, suit: int, text: str,
            suits: int = 0, key: tuple[int, ...] | None = None) -> Play:
    key = key or (kind, mask, rank)
    play = _INTERNED.get(key)
    if play is None:
        play = object.__new__(Play)
        play.kind, play.mask, play.rank, play.high = kind, mask, rank, high
        play.size, play.suit, play.suits, play._text = mask.bit_count(), suit, suits, text
        _INTERNED[key] = play
    return play


def group_play(rank: int, mask: int, jsuits: int = 0) -> Play:
    """A group of ``rank``; ``mask`` holds naturals of that rank and maybe jokers;
    ``jsuits`` the suits the jokers stand for, when they name them (the suit lock)."""
    if jsuits:
        return _suited_group(rank, mask, jsuits)
    play = _INTERNED.get((_GROUP, mask, rank))
    if play is not None:
        return play
    suits = (mask >> (rank << 2)) & 15
    if mask.bit_count() == 5:
        suits = FIVE_SUITS
    return _intern(PlayKind.GROUP, mask, rank, rank, -1, format_cards(mask), suits)


def _suited_group(rank: int, mask: int, jsuits: int) -> Play:
    key = (_GROUP, mask, rank, jsuits)
    play = _INTERNED.get(key)
    if play is not None:
        return play
    naturals = mask & NATURAL_BITS
    parts = [format_cards(naturals)]
    free = [s for s in range(4) if jsuits >> s & 1]  # the lowest named suit to JR
    for joker, suit in zip(cards_of(mask & JOKER_BITS), free):
        parts.append(f"{joker}={ALL_CARDS[rank * 4 + suit]}")
    suits = (naturals >> (rank << 2)) & 15 | jsuits
    return _intern(PlayKind.GROUP, mask, rank, rank, -1, " ".join(parts), suits, key)


def joker_play(bit: int) -> Play:
    return _intern(PlayKind.JOKER, bit, RANKS, RANKS, -1, format_cards(bit))


def straight_play(low: int, length: int, suit: int, mask: int) -> Play:
    """A straight of ``suit`` from rank ``low``; jokers fill the ranks not in ``mask``."""
    play = _INTERNED.get((_STRAIGHT, mask, low))
    if play is not None:
        return play
    jokers = list(cards_of(mask & JOKER_BITS))
    parts = []
    for rank in range(low, low + length):  # (a joker may stand below the 3 or above the 2)
        natural = 0 <= rank < RANKS and mask >> (rank * 4 + suit) & 1
        parts.append(str(ALL_CARDS[rank * 4 + suit]) if natural else str(jokers.pop(0)))
    return _intern(PlayKind.STRAIGHT, mask, low, low + length - 1, suit, "-".join(parts),
                   1 << suit)


def straight_from_cards(cards: Iterable[Card]) -> Play:
    """A straight from cards in rank order, jokers standing at their places."""
    cards = tuple(cards)
    if len(cards) < 3:
        raise NotAPlay("a straight needs at least 3 cards")
    naturals = [(i, c) for i, c in enumerate(cards) if c.rank is not None]
    if not naturals:
        raise NotAPlay("a straight needs at least one natural card")
    suit = naturals[0][1].suit
    first_pos, first = naturals[0]
    low = int(first.rank) - first_pos  # type: ignore[arg-type]
    for pos, card in naturals:
        if card.suit != suit or card.rank != low + pos:
            raise NotAPlay(f"{'-'.join(map(str, cards))} is not a straight: one suit, "
                           "consecutive ranks from 3 up to 2, no wrap")
    if low < -1 or low + len(cards) > RANKS + 1:  # a joker below the 3 or above the 2 at most
        raise NotAPlay(f"{'-'.join(map(str, cards))} runs past the 3 or the 2: straights do not wrap")
    return straight_play(low, len(cards), int(suit), mask_of(cards))  # type: ignore[arg-type]


PASS = _intern(PlayKind.PASS, 0, -1, -1, -1, "pass")
Play.PASS = PASS


@dataclass(frozen=True, slots=True)
class Give:
    """An exchange choice: the cards a Président or Vice-Président gives back."""

    mask: int

    def __post_init__(self) -> None:
        if not self.mask or self.mask & ~(NATURAL_BITS | JOKER_BITS):
            raise NotAPlay("a gift names one or more cards")

    @property
    def cards(self) -> tuple[Card, ...]:
        return cards_of(self.mask)

    @property
    def size(self) -> int:
        return self.mask.bit_count()

    def __str__(self) -> str:
        return "give " + format_cards(self.mask)

    @classmethod
    def from_cards(cls, cards: Iterable[Card]) -> Give:
        return cls(mask_of(cards))

    @classmethod
    def from_str(cls, text: str) -> Give:
        raw = text.strip()
        if raw[:4].lower() == "give":
            raw = raw[4:]
        return cls(mask_of(parse_cards(_split_cards(raw))))


Action = Union[Play, Give]


@lru_cache(maxsize=1 << 16)  # actions are immutable; logs and views repeat the same texts
def parse_action(text: str) -> Action:
    """Parse the canonical text of any action (a play, ``pass`` or ``give …``)."""
    if text.strip()[:4].lower() == "give":
        return Give.from_str(text)
    return Play.from_str(text)
