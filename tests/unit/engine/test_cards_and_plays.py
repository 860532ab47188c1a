"""Cards, plays and gifts: text forms, parsing variants, errors, interning (docs/rules.md)."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    ALL_CARDS, PASS, DuplicateCard, Give, InvalidAction, NotAPlay, NotStrongEnough, OptionDisabled,
    Play,
    PlayKind, UnknownCard, apply, cards_of, legal_actions, mask_of, parse_action, parse_card,
    parse_cards,
)
from engine.cards import Card
from helpers import mask, position

# --- cards ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["3C", "7H", "TS", "JD", "QC", "KH", "AS", "2C", "2S", "JR", "JB"])
def test_card_text_round_trips(text: str) -> None:
    assert str(parse_card(text)) == text


@pytest.mark.parametrize("variant, canonical", [
    ("10H", "TH"), ("10s", "TS"), ("th", "TH"), ("7h", "7H"), ("qd", "QD"), ("2c", "2C"),
    ("7♥", "7H"), ("A♠", "AS"), ("3♣", "3C"), ("K♦", "KD"), ("10♥", "TH"),
    ("jr", "JR"), ("jb", "JB"), (" 7H ", "7H"),
])
def test_card_parsing_variants(variant: str, canonical: str) -> None:
    assert parse_card(variant) is parse_card(canonical)


@pytest.mark.parametrize("text, index", [("3C", 0), ("3S", 3), ("4C", 4), ("2S", 51), ("JR", 52), ("JB", 53)])
def test_card_bit_is_rank_times_four_plus_suit(text: str, index: int) -> None:
    # docs/rules.md: bit rank*4 + suit, rank 0 = the 3, rank 12 = the 2, jokers 52 and 53
    assert parse_card(text).index == index
    assert mask(text) == 1 << index


def test_cards_of_lists_a_mask_in_canonical_order() -> None:
    assert [str(c) for c in cards_of(mask("JR 2C 3S 3C TH"))] == ["3C", "3S", "TH", "2C", "JR"]
    assert cards_of(mask_of(ALL_CARDS)) == ALL_CARDS


@given(st.sets(st.sampled_from(ALL_CARDS)))
def test_cards_of_gives_back_the_cards_of_any_mask_lowest_first(cards: set[Card]) -> None:
    assert cards_of(mask_of(cards)) == tuple(sorted(cards))


@pytest.mark.parametrize("text", ["", "1H", "11H", "7X", "ZZ", "J", "JJ", "7HH", "JK"])
def test_unknown_card(text: str) -> None:
    with pytest.raises(UnknownCard) as info:
        parse_card(text)
    assert info.value.code == "unknown_card"
    assert isinstance(info.value, InvalidAction)


@pytest.mark.parametrize("texts", [["7H", "7H"], ["7H", "7h"], ["TS", "10S"], ["JR", "jr"]])
def test_duplicate_card(texts: list[str]) -> None:
    with pytest.raises(DuplicateCard) as info:
        parse_cards(texts)
    assert info.value.code == "duplicate_card"


# --- plays: canonical text -------------------------------------------------------------


@pytest.mark.parametrize("text, kind, size", [
    ("7H", PlayKind.GROUP, 1),
    ("7C 7H", PlayKind.GROUP, 2),
    ("9D 9H 9S", PlayKind.GROUP, 3),
    ("9D 9H 9S JR", PlayKind.GROUP, 4),
    ("5H JR JB", PlayKind.GROUP, 3),
    ("JR", PlayKind.JOKER, 1),
    ("JB", PlayKind.JOKER, 1),
    ("5H-6H-7H", PlayKind.STRAIGHT, 3),
    ("5H-JR-7H", PlayKind.STRAIGHT, 3),
    ("JR-6H-7H", PlayKind.STRAIGHT, 3),
    ("5H-6H-JR", PlayKind.STRAIGHT, 3),
    ("JR-JB-5H", PlayKind.STRAIGHT, 3),
    ("KS-AS-2S", PlayKind.STRAIGHT, 3),
    ("3C-4C-5C-6C-7C-8C-9C-TC-JC-QC-KC-AC-2C", PlayKind.STRAIGHT, 13),
])
def test_play_text_round_trips(text: str, kind: PlayKind, size: int) -> None:
    play = Play.from_str(text)
    assert (str(play), play.kind, play.size) == (text, kind, size)
    assert parse_action(str(play)) is play


@pytest.mark.parametrize("variant, canonical", [
    ("7H 7C", "7C 7H"),  # naturals by suit
    ("7h,7c", "7C 7H"),
    ("JR 9S 9D 9H", "9D 9H 9S JR"),  # jokers last
    ("10H 10S", "TH TS"),
    ("7♥ 7♠", "7H 7S"),
    ("5H 6H 7H", "5H-6H-7H"),  # no dashes, not a group: a straight
    ("7H 5H 6H", "5H-6H-7H"),  # naturals only: sorted
    ("5H 6H JR", "5H-6H-JR"),  # in the order given, the joker at its place
    ("5h - jr - 7h", "5H-JR-7H"),
    ("JB-5H-JR", "JR-5H-JB"),  # two jokers are interchangeable in a straight
    ("jr", "JR"),
])
def test_play_parsing_variants(variant: str, canonical: str) -> None:
    assert Play.from_str(variant) is Play.from_str(canonical)
    assert str(Play.from_str(variant)) == canonical


def test_a_joker_stands_at_its_place_in_a_straight() -> None:
    # 000: a joker may take any place in a straight; here it is the 6 of hearts
    straight = Play.from_str("5H-JR-7H")
    assert (straight.rank, straight.high, straight.suit, straight.jokers) == (2, 4, 2, 1)
    assert straight.mask == mask("5H 7H JR")


@pytest.mark.parametrize("text", ["pass", "PASS", " Pass "])
def test_pass_is_the_only_falsy_play(text: str) -> None:
    assert Play.from_str(text) is PASS
    assert not PASS and str(PASS) == "pass"
    assert all(Play.from_str(t) for t in ("3C", "JR", "7C 7H", "5H-6H-7H"))


def test_give_text_round_trips() -> None:
    give = Give.from_str("give 3C 5D")
    assert str(give) == "give 3C 5D"
    assert parse_action("give 5d 3c") == give
    assert parse_action("GIVE 5D, 3C") == give
    assert give.mask == mask("3C 5D") and give.size == 2


@pytest.mark.parametrize("text, error", [
    ("7H 8S", NotAPlay),  # two ranks, too short for a straight
    ("JR JB", NotAPlay),  # a group holds a natural card
    ("JR-JB-JR", DuplicateCard),
    ("7C 7D 7H 7S JR JB", NotAPlay),  # a group has at most 5 cards (four and a joker)
    ("7C 7D 7H JR JB", NotAPlay),  # a 5-card group is four naturals and a joker
    ("5H-6D-7H", NotAPlay),  # a straight is of one suit
    ("5H-7H-8H", NotAPlay),  # consecutive ranks
    ("5H-6H", NotAPlay),  # 3 cards at least
    ("5H 5D 6H", NotAPlay),
    ("", NotAPlay),
    ("7H 7H", DuplicateCard),
    ("7Z", UnknownCard),
    ("give", NotAPlay),  # a gift names cards
    ("give 3C 3C", DuplicateCard),
])
def test_malformed_actions(text: str, error: type[InvalidAction]) -> None:
    with pytest.raises(error) as info:
        parse_action(text)
    assert info.value.code == {NotAPlay: "not_a_play", DuplicateCard: "duplicate_card",
                               UnknownCard: "unknown_card"}[error]


# --- straights: no wrap, K-A-2 highest (000) ---------------------------------------------


@pytest.mark.parametrize("text", ["AH-2H-3H", "AH 2H 3H", "2H-3H-4H", "QS-KS-AS-2S-3S", "JR-2H-3H"])
def test_straights_do_not_wrap(text: str) -> None:
    # 000: "A-2-3 n'est pas une suite"
    with pytest.raises(NotAPlay):
        Play.from_str(text)


def test_joker_cannot_stand_above_the_two() -> None:
    # 000: no wrap, so no place above the 2 for a joker (UECda's jokers_extend_straights
    # gives it one: the text reads, the rules refuse it unless that option is on)
    state = position("classic", ["AH 2H JR 5C", "4D", "6S"], straights=True, jokers=1)
    assert "AH-2H-JR" not in {str(a) for a in legal_actions(state)}
    with pytest.raises(OptionDisabled):
        apply(state, Play.from_str("AH-2H-JR"))
    with pytest.raises(NotAPlay):
        Play.from_str("AH-2H-JR-JB")  # two places above the 2: never


def test_k_a_2_is_the_highest_straight_of_three() -> None:
    # 000: "R-A-2 est la plus haute suite de trois"
    every_other_card = " ".join(str(c) for c in ALL_CARDS[:52] if str(c) not in ("KS", "AS", "2S"))
    state = position("classic", [every_other_card, "4D", "KS AS 2S"], trick=[(2, "KS-AS-2S")],
                     straights=True)
    assert list(legal_actions(state)) == [PASS]
    with pytest.raises(NotStrongEnough):
        apply(state, Play.from_str("QH-KH-AH"))


def test_k_a_2_can_only_be_equalled_where_equal_match_is_on() -> None:
    # 000: "égale ou supérieure" in the club ruleset
    state = position("club", ["KH AH 2H QD KD AD", "4D", "KS AS 2S"], trick=[(2, "KS-AS-2S")],
                     straights=True)
    assert [str(a) for a in legal_actions(state)] == ["KH-AH-2H", "pass"]


# --- interning and pickling ------------------------------------------------------------

SAMPLES = ["pass", "7H", "JR", "JB", "7C 7H", "9D 9H 9S JR", "5H-JR-7H", "KS-AS-2S"]


@pytest.mark.parametrize("text", SAMPLES)
def test_plays_are_interned(text: str) -> None:
    assert Play.from_str(text) is Play.from_str(text)
    assert Play.from_str(text) == Play.from_str(text.lower())


@pytest.mark.parametrize("text", SAMPLES)
def test_plays_pickle_to_the_same_object(text: str) -> None:
    play = Play.from_str(text)
    assert pickle.loads(pickle.dumps(play)) is play
    assert copy.deepcopy(play) is play


def test_cards_and_gifts_pickle() -> None:
    assert all(pickle.loads(pickle.dumps(c)) is c for c in ALL_CARDS)
    give = Give.from_str("give 3C 5D")
    assert pickle.loads(pickle.dumps(give)) == give


# --- joker-free straights: the bit-parallel fast path against the general scan ----------


@given(hand=st.integers(0, (1 << 52) - 1), reversed_=st.booleans(),
       length=st.integers(3, 13), min_strength=st.integers(-1, 14))
def test_joker_free_straights_fast_path_lists_what_the_scan_does(
        hand: int, reversed_: bool, length: int, min_strength: int) -> None:
    from engine import legal
    scanned: list[Play] = []
    found = legal._straights(hand, length, reversed_, scanned, min_strength)
    fast: list[Play] = []
    starts = legal._runs(legal._suit_lanes(hand), length)
    if starts:
        legal._plain_straights(starts, length, reversed_, fast, min_strength)
    assert bool(starts) == found
    assert fast == scanned
