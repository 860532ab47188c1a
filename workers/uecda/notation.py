"""UECda's texts for cards and moves, to and from the engine's values (UECDA.md §7.1-7.2).

The FujiGokoro ``.dat`` log writes a card ``d3`` (suit letter ``c d h s``, rank letter
``3 4 5 6 7 8 9 t j q k a 2``) or ``jo``; a move ``p`` (a pass), ``jk`` (the lone
joker), ``ds-9(s)`` (a group: its suits, the joker's in parentheses), ``h-678(7)`` (a
straight: its suit, its ranks low to high, the joker's in parentheses, ``-`` below the 3
and ``+`` above the 2) or ``cdhsx-7`` (four 7s and the joker). Each conversion is a pair.
"""

from __future__ import annotations

from engine import Card, NotAPlay, Play, PlayKind, parse_card
from engine.cards import NATURAL_BITS, RANKS

RANK_LETTERS = "3456789tjqka2"  # the engine's rank order, weakest first
SUIT_LETTERS = "cdhs"  # the engine's suit order
_PAST = {"-": -1, "+": RANKS}  # a straight's joker below the 3, above the 2
JOKER = "jo"


def card_from_token(token: str) -> Card:
    if token == JOKER:
        return parse_card("JR")
    if len(token) != 2 or token[0] not in SUIT_LETTERS or token[1] not in RANK_LETTERS:
        raise NotAPlay(f"{token!r} is not a UECda card (suit c/d/h/s then rank, or jo)")
    return parse_card(token[1].upper() + token[0].upper())


def card_to_token(card: Card) -> str:
    if card.is_joker:
        return JOKER
    return SUIT_LETTERS[card.index & 3] + RANK_LETTERS[card.index >> 2]


def move_from_token(token: str) -> Play:
    """A ``play`` token of the log (its ``[t]`` thinking time dropped) as an engine play."""
    text = token.split("[", 1)[0]
    if text == "p":
        return Play.PASS
    if text == "jk":
        return Play.from_str("JR")
    suits, dash, rest = text.partition("-")  # the first "-": suit letters never hold one
    ranks, paren, joker = rest.partition("(")
    if paren and not joker.endswith(")"):
        raise NotAPlay(f"{token!r}: an unclosed parenthesis")
    joker = joker.removesuffix(")")
    if not dash or not suits or not ranks or any(s not in SUIT_LETTERS + "x" for s in suits):
        raise NotAPlay(f"{token!r} is not a UECda move")
    if "x" in suits:  # four of a kind and the joker; the parentheses are often bogus
        if suits != "cdhsx" or len(ranks) != 1:
            raise NotAPlay(f"{token!r} is not a UECda 5-card group")
        return Play.from_str(" ".join(_card(ranks, s) for s in SUIT_LETTERS) + " JR")
    if len(ranks) == 1:  # a single or a group, the joker naming the suit it stands in
        if not set(joker) <= set(suits):
            raise NotAPlay(f"{token!r}: the joker stands in one of the group's suits")
        naturals = [_card(ranks, s) for s in suits if s not in joker]
        named = [f"JR={_card(ranks, s)}" for s in joker]
        return Play.from_str(" ".join(naturals + named))
    if len(suits) != 1:
        raise NotAPlay(f"{token!r}: a straight has one suit")
    return Play.from_str("-".join("JR" if r in joker else _card(r, suits) for r in ranks))


def move_to_token(play: Play) -> str:
    if not play:
        return "p"
    if play.kind is PlayKind.JOKER:
        return "jk"
    if play.kind is PlayKind.STRAIGHT:
        ranks, joker = "", ""
        for rank in range(play.rank, play.high + 1):
            letter = "-" if rank < 0 else "+" if rank >= RANKS else RANK_LETTERS[rank]
            ranks += letter
            if not (0 <= rank < RANKS and play.mask >> (rank * 4 + play.suit) & 1):
                joker += letter
        return f"{SUIT_LETTERS[play.suit]}-{ranks}" + (f"({joker})" if joker else "")
    letter = RANK_LETTERS[play.rank]
    if play.size == 5:
        return f"cdhsx-{letter}"
    if play.jokers and not play.names_joker_suits:
        raise NotAPlay(f"{play}: a UECda group names the card its joker stands for")
    naturals = (play.mask & NATURAL_BITS) >> (play.rank * 4) & 15
    suits = "".join(s for i, s in enumerate(SUIT_LETTERS) if play.suits >> i & 1)
    joker = "".join(s for i, s in enumerate(SUIT_LETTERS) if (play.suits & ~naturals) >> i & 1)
    return f"{suits}-{letter}" + (f"({joker})" if joker else "")


def _card(rank: str, suit: str) -> str:
    """The engine's text of a natural card from UECda letters (rank ``t``, suit ``h``)."""
    if rank in _PAST or rank not in RANK_LETTERS:
        raise NotAPlay(f"{suit}{rank} is not a UECda card")
    return rank.upper() + suit.upper()
