"""The UECda options (``../shared/rules/UECDA.md``, docs/rules.md), each in literal
scenarios taken from the rules text, on and off, in both orders."""

from __future__ import annotations

import pytest

from engine import (
    CannotPassLead, JokerUnnamed, NotAPlay, NotStrongEnough, OptionDisabled, Phase, Play, Role,
    Rules, State, SuitLocked, WrongSize, apply, legal_actions, new_series, parse_action, round_deal,
)
from engine.events import (
    ExchangeDone, Passed, Revolution, RoundEnded, RoundStarted, TrickWon,
)
from engine.game import THREE_OF_DIAMONDS
from engine.legal import lock_of
from positions import mask, position

STRAIGHTS = {"straights": True}


def _texts(state: object) -> set[str]:
    return {str(a) for a in legal_actions(state)}  # type: ignore[arg-type]


# --- straights compared entirely above (UECDA.md §2.2) -------------------------------


@pytest.mark.parametrize("answer, above, highest", [
    ("8D 9D TD", True, True),  # "on 5-6-7 the weakest answer is 8-9-10 of any suit"
    ("6D 7D 8D", False, True),  # its highest is higher, but 6 and 7 are not above 7
    ("7D 8D 9D", False, True),  # 7 is not above 7
    ("4D 5D 6D", False, False),
])
def test_a_straight_beats_another_only_when_every_card_is_above(
        answer: str, above: bool, highest: bool) -> None:
    for straights_above, legal in ((True, above), (False, highest)):
        state = position("classic", ("", answer, "4S"), to_act=1, trick=[(0, "5S-6S-7S")],
                         straights_above=straights_above, **STRAIGHTS)
        play = Play.from_str("-".join(answer.split()))
        assert (str(play) in _texts(state)) is legal
        if not legal:
            with pytest.raises(NotStrongEnough):
                apply(state, play)


def test_in_a_revolution_a_straight_must_be_entirely_below() -> None:
    on = {"straights_above": True, "reversed": True, **STRAIGHTS}
    state = position("classic", ("", "2D 3D 4D 5D 6D", "4S"), to_act=1, trick=[(0, "7S-8S-9S")],
                     **on)
    assert _texts(state) >= {"3D-4D-5D", "4D-5D-6D", "pass"}  # highest under 7
    assert "5D-6D-7D" not in _texts(state) and "2D" not in _texts(state)
    assert {t for t in _texts(state) if "-" in t} == {"3D-4D-5D", "4D-5D-6D"}


# --- a straight of five or more reverses the order (§2.4) -----------------------------


@pytest.mark.parametrize("run, size, reverses", [
    ("3H-4H-5H-6H-7H", 5, True), ("3H-4H-5H-6H", 4, False), ("3H-4H-5H-6H-7H-8H", 6, True)])
def test_a_long_straight_is_a_revolution(run: str, size: int, reverses: bool) -> None:
    hand = " ".join(run.split("-")) + " KS"
    for option in (True, False):
        state = position("classic", (hand, "AS", "4S"), straight_revolution=option,
                         revolution=True, **STRAIGHTS)
        after, events = apply(state, parse_action(run))
        assert after.reversed is (reverses and option)
        assert any(isinstance(e, Revolution) for e in events) is (reverses and option)


def test_a_second_long_straight_restores_the_order() -> None:
    state = position("classic", ("3H 4H 5H 6H 7H KS", "8C 9C TC JC QC 3S", "4S"), to_act=0,
                     straight_revolution=True, revolution=True, **STRAIGHTS)
    state, _ = apply(state, parse_action("3H-4H-5H-6H-7H"))
    assert state.reversed
    # in the reversed order nothing of 8-Q is below 3-7: the answer must be entirely below
    assert "8C-9C-TC-JC-QC" not in _texts(state)


# --- the 3 of spades on the single joker (§2.2) ---------------------------------------


def test_the_three_of_spades_beats_the_single_joker_and_ends_the_trick() -> None:
    for reversed_ in (False, True):
        state = position("classic", ("KD", "3S 3H 2C", "AD"), to_act=1, trick=[(0, "JR")],
                         jokers=1, spade_three_beats_joker=True, reversed=reversed_)
        assert _texts(state) == {"3S", "pass"}  # not the 3 of hearts, not the 2
        after, events = apply(state, parse_action("3S"))
        won = [e for e in events if isinstance(e, TrickWon)]
        assert won and won[0].seat == 1 and won[0].closed and after.to_act == 1
        assert after.trick == ()


def test_without_the_option_nothing_beats_the_single_joker() -> None:
    state = position("classic", ("KD", "3S 3H", "AD"), to_act=1, trick=[(0, "JR")], jokers=1)
    assert _texts(state) == {"pass"}
    with pytest.raises(NotStrongEnough):
        apply(state, parse_action("3S"))


def test_the_three_of_spades_is_a_single_like_any_other_elsewhere() -> None:
    state = position("classic", ("", "3S KH", "4S"), to_act=1, trick=[(0, "4D")], jokers=1,
                     spade_three_beats_joker=True)
    assert "3S" not in _texts(state)  # a 3 on a 4: no


# --- the last to play may play on his own play (§2.8) ---------------------------------


def test_when_the_others_have_passed_the_turn_comes_back_to_the_last_to_play() -> None:
    state = position("classic", ("5H 9H", "4C", "4D"), to_act=0, play_on_own=True)
    state, _ = apply(state, parse_action("5H"))
    state, _ = apply(state, parse_action("pass"))
    state, events = apply(state, parse_action("pass"))
    assert state.to_act == 0 and state.trick and not any(
        isinstance(e, TrickWon) for e in events)
    assert _texts(state) == {"9H", "pass"}  # on his own 5: a higher single, or pass
    state, _ = apply(state, parse_action("9H"))  # his last card: he goes out
    assert state.hands[0] == 0


def test_the_trick_ends_when_the_last_to_play_passes_too_and_he_leads() -> None:
    state = position("classic", ("5H 9H KS", "4C 6C", "4D 6D"), to_act=0, play_on_own=True)
    for action in ("5H", "pass", "pass"):
        state, _ = apply(state, parse_action(action))
    state, events = apply(state, parse_action("pass"))
    assert [e for e in events if isinstance(e, Passed)] == [Passed(0)]
    won = next(e for e in events if isinstance(e, TrickWon))
    assert won.seat == 0 and state.to_act == 0 and state.trick == ()


def test_without_the_option_the_trick_ends_when_the_others_have_passed() -> None:
    state = position("classic", ("5H 9H KS", "4C 6C", "4D 6D"), to_act=0)
    for action in ("5H", "pass"):
        state, _ = apply(state, parse_action(action))
    state, events = apply(state, parse_action("pass"))
    assert any(isinstance(e, TrickWon) for e in events) and state.trick == ()


def test_a_player_who_goes_out_is_not_given_the_turn_back() -> None:
    state = position("classic", ("5H", "4C 6C", "4D 7D"), to_act=0, play_on_own=True)
    state, _ = apply(state, parse_action("5H"))  # out: the others answer or pass
    state, _ = apply(state, parse_action("6C"))
    state, _ = apply(state, parse_action("pass"))
    assert state.to_act == 1  # seat 1 played last: back to him, seat 0 is out
    assert _texts(state) == {"pass"}


# --- the 3 of diamonds leads (§1) ------------------------------------------------------


def test_the_holder_of_the_three_of_diamonds_leads_the_first_round() -> None:
    for seed in range(5):
        state = new_series(Rules.preset("classic", first_lead="three_of_diamonds"), seed)
        assert state.hands[state.to_act] & THREE_OF_DIAMONDS


def test_the_three_of_diamonds_leads_every_round_once_the_exchange_is_done() -> None:
    rules = Rules.preset("classic", players=4, rounds=3, first_lead="three_of_diamonds",
                         later_lead="three_of_diamonds")
    state, finished = new_series(rules, 3), 1  # (round 1 dealt: its leader holds it)
    assert state.hands[state.to_act] & THREE_OF_DIAMONDS
    while not state.is_over:
        actions = list(legal_actions(state))
        state, events = apply(state, actions[0] if len(actions) == 1 else actions[-2]
                              if str(actions[-1]) == "pass" else actions[0])
        for event in events:
            if isinstance(event, ExchangeDone) or (isinstance(event, RoundStarted)
                                                   and not event.exchange):
                finished += 1
                assert state.hands[state.to_act] & THREE_OF_DIAMONDS
                assert state.leader == state.to_act
    assert finished == 3


def test_the_suit_order_breaks_ties_of_the_automatic_gifts() -> None:
    """UECda: the strongest cards, the joker first, then 2 > A > …, ties ♠ > ♥ > ♦ > ♣."""
    from engine.cards import highest_cards
    assert highest_cards(mask("2C 2S 2H AD"), 2) == mask("2S 2H")
    assert highest_cards(mask("JR 2C AS"), 2) == mask("JR 2C")


def test_the_three_of_spades_is_no_answer_to_a_straight_longer_than_the_hand() -> None:
    """(Found by the property tests: the joker's answer was offered on a straight the
    hand was too small to follow.)"""
    state = position("classic", ("", "3S KH", "4S"), to_act=1, trick=[(0, "5D-6D-7D")],
                     jokers=1, spade_three_beats_joker=True, **STRAIGHTS)
    assert _texts(state) == {"pass"}


# --- the suit lock (§2.3) ---------------------------------------------------------------

LOCK = {"suit_lock": True, "jokers": 1}


def _follows(trick: list[tuple[int, str]], hand: str, **options: object) -> set[str]:
    seats = ["", hand, "4S"]
    return _texts(position("classic", seats, to_act=1, trick=trick, **options)) - {"pass"}


@pytest.mark.parametrize("trick, hand, locked, unlocked", [
    # "♥4 then ♥6 locks ♥"
    ([(0, "4H"), (2, "6H")], "7H 7S 8D", {"7H"}, {"7H", "7S", "8D"}),
    # "{♥7 ♠7} then {♥9 ♠9} locks ♥♠"
    ([(0, "7H 7S"), (2, "9H 9S")], "TC TD JH JS", {"JH JS"}, {"TC TD", "JH JS"}),
    # a straight has one suit: hearts then hearts locks hearts
    ([(0, "3H-4H-5H"), (2, "6H-7H-8H")], "9H TH JH 9C TC JC", {"9H-TH-JH"},
     {"9H-TH-JH", "9C-TC-JC"}),
])
def test_two_plays_with_the_same_suits_lock_the_trick(
        trick: list[tuple[int, str]], hand: str, locked: set[str], unlocked: set[str]) -> None:
    straights = {"straights": True} if "-" in trick[0][1] else {}
    assert _follows(trick, hand, suit_lock=True, **straights) == locked
    assert _follows(trick, hand, **straights) == unlocked


def test_different_suits_do_not_lock() -> None:
    # "{♥7 ♠7} then {♥9 ♣9} does not lock"
    assert _follows([(0, "7H 7S"), (2, "9H 9C")], "TC TD JH JS", suit_lock=True) == \
        {"TC TD", "JH JS"}
    # one play alone never locks: the next may have any suits
    assert _follows([(0, "4H")], "7H 7S 8D", suit_lock=True) == {"7H", "7S", "8D"}


def test_a_play_outside_the_lock_is_refused_and_changes_nothing() -> None:
    state = position("classic", ("", "7H 7S 8D", "4S"), to_act=1,
                     trick=[(0, "4H"), (2, "6H")], suit_lock=True)
    with pytest.raises(SuitLocked) as info:
        apply(state, parse_action("8D"))
    assert info.value.code == "suit_locked" and "H" in str(info.value)
    assert state.hands[1] == mask("7H 7S 8D")


def test_the_joker_locks_by_the_card_it_names() -> None:
    trick = [(0, "7H 7S")]
    hand = "9H JR TC TD"
    options = _follows(trick, hand, **LOCK)
    # every free card of the 9 may be named: only 9S makes the pair ♥♠, as the 7s
    assert {"9H JR=9S", "9H JR=9C", "9H JR=9D"} <= options
    for named, locks in (("9H JR=9S", True), ("9H JR=9C", False)):
        state = position("classic", ("", hand, "TH TS QC QD"), to_act=1, trick=trick, **LOCK)
        state, _ = apply(state, parse_action(named))
        # seat 2 answers: ♥♠ only once the joker named the 9 of spades
        assert _texts(state) - {"pass"} == ({"TH TS"} if locks else {"TH TS", "QC QD"})


def test_under_a_lock_the_joker_takes_the_locked_suit_it_needs() -> None:
    trick = [(0, "7H 7S"), (2, "8H 8S")]
    assert _follows(trick, "9H JR 9C", **LOCK) == {"9H JR=9S"}


def test_a_single_joker_may_go_on_a_locked_single_and_lifts_the_lock() -> None:
    state = position("classic", ("", "JR 8D", "3S 5C"), to_act=1,
                     trick=[(0, "4H"), (2, "6H")], **LOCK, spade_three_beats_joker=True)
    assert _texts(state) == {"JR", "pass"}
    state, _ = apply(state, parse_action("JR"))
    assert lock_of(state.trick) == 0
    # "♠3 may answer the joker whatever the lock"
    assert _texts(state) == {"3S", "pass"}


def test_the_lock_ends_with_the_trick() -> None:
    state = position("classic", ("7D 9C", "5H 8H", "4S 5S"), to_act=0,
                     trick=[(1, "4H"), (2, "6H")], **LOCK)
    assert _texts(state) == {"pass"}  # ♥ locked, seat 0 holds none above 6
    state, _ = apply(state, parse_action("pass"))
    assert _texts(state) == {"8H", "pass"}
    state, _ = apply(state, parse_action("pass"))  # seat 2 wins the trick and leads
    assert state.trick == () and state.to_act == 2
    state, _ = apply(state, parse_action("4S"))
    assert lock_of(state.trick) == 0 and _texts(state) == {"7D", "9C", "pass"}


def test_a_joker_names_its_card_only_under_the_lock() -> None:
    locked = position("classic", ("9H JR", "4S", "5S"), to_act=0, **LOCK)
    with pytest.raises(JokerUnnamed):
        apply(locked, parse_action("9H JR"))
    plain = position("classic", ("9H JR", "4S", "5S"), to_act=0, jokers=1)
    with pytest.raises(OptionDisabled):
        apply(plain, parse_action("9H JR=9S"))
    assert "9H JR" in _texts(plain) and "9H JR=9S" in _texts(locked)


def test_named_jokers_have_one_canonical_text() -> None:
    play = Play.from_str("JB=7S 7H JR=7C")
    assert str(play) == "7H JR=7C JB=7S" and Play.from_str(str(play)) is play
    assert play.suits == 0b1101  # ♣ ♥ ♠


# --- the 5-card group (§2.1) -------------------------------------------------------------


def test_four_of_a_kind_and_the_joker_make_a_five_card_group() -> None:
    hand = "7C 7D 7H 7S JR KD"
    on = position("classic", (hand, "4S", "5S"), to_act=0, jokers=1, five_card_groups=True,
                  revolution=True)
    assert "7C 7D 7H 7S JR" in _texts(on)
    after, events = apply(on, parse_action("7C 7D 7H 7S JR"))
    assert after.reversed and any(isinstance(e, Revolution) for e in events)  # a group ≥ 4
    off = position("classic", (hand, "4S", "5S"), to_act=0, jokers=1)
    assert "7C 7D 7H 7S JR" not in _texts(off)
    with pytest.raises(OptionDisabled):
        apply(off, parse_action("7C 7D 7H 7S JR"))


def test_a_five_card_group_is_beaten_only_by_a_higher_one() -> None:
    trick = [(0, "7C 7D 7H 7S JR")]
    state = position("classic", ("", "9C 9D 9H 9S JB KD", "4S"), to_act=1, trick=trick,
                     jokers=2, five_card_groups=True)
    assert _texts(state) == {"9C 9D 9H 9S JB", "pass"}
    with pytest.raises(WrongSize):
        apply(state, parse_action("9C 9D 9H 9S"))


# --- a joker below the 3 or above the 2 (§2.1) -------------------------------------------

EXTEND = {"straights": True, "jokers": 1, "jokers_extend_straights": True}


def test_a_joker_extends_a_straight_below_the_three_or_above_the_two() -> None:
    # [W]: straights like "jo-3-4" and "a-2-jo" are allowed
    state = position("classic", ("3H 4H AH 2H JR 9C", "4S", "5S"), **EXTEND)
    runs = [t for t in (str(a) for a in legal_actions(state)) if "-" in t]
    assert runs == ["JR-3H-4H", "3H-4H-JR", "JR-AH-2H", "AH-2H-JR"]  # weakest first
    off = position("classic", ("3H 4H AH 2H JR 9C", "4S", "5S"), straights=True, jokers=1)
    assert {t for t in (str(a) for a in legal_actions(off)) if "-" in t} == \
        {"3H-4H-JR", "JR-AH-2H"}


@pytest.mark.parametrize("top, answer, reversed_, legal", [
    ("JR-3H-4H", "4D-5D-6D", False, False),  # entirely above: 4 is not above the 4
    ("JR-3H-4H", "5D-6D-7D", False, True),
    ("5S-6S-7S", "JR-3H-4H", True, True),  # in a revolution: entirely below the 5
    ("QS-KS-AS", "AH-2H-JR", False, False),  # the A is not above the A
    ("TS-JS-QS", "KH-AH-2H-JR", False, False),  # (a different length)
    ("9S-TS-JS", "AH-2H-JR", False, True),  # A, 2 and the place above: all above the J
])
def test_a_joker_past_the_ends_is_judged_at_its_place(
        top: str, answer: str, reversed_: bool, legal: bool) -> None:
    hand = " ".join(c for c in answer.split("-") if c != "JR") + " JR 9C"
    state = position("classic", ("", hand, "4C"), to_act=1, trick=[(0, top)],
                     reversed=reversed_, straights_above=True, **EXTEND)
    assert (answer in _texts(state)) is legal
    if not legal:
        with pytest.raises(ValueError):
            apply(state, Play.from_str(answer))


def test_still_no_wrap_past_the_ends() -> None:
    with pytest.raises(NotAPlay):
        Play.from_str("KH-AH-2H-3H")
    with pytest.raises(NotAPlay):
        Play.from_str("JR-JB-3H-4H")  # two places below the 3


# --- the deal from the Daifugō, and init games (§1, §3.3) --------------------------------


def _to_round(state: State, round_no: int) -> tuple[State, list[object]]:
    """Play the first legal action until ``round_no`` starts; its events."""
    events: list[object] = []
    while state.round_no < round_no:
        state, events = apply(state, next(iter(legal_actions(state))))
    return state, events


def test_from_round_two_the_deal_starts_at_the_president() -> None:
    rules = Rules.preset("classic", players=5, jokers=1, rounds=3, deal_from_president=True)
    state = new_series(rules, 11)
    # "the start player and the next two players in seat order get 11 cards; the last two 10"
    assert [h.bit_count() for h in round_deal(state, 1)] == [11, 11, 11, 10, 10]
    for round_no in (2, 3):
        state, _ = _to_round(state, round_no)
        president = state.roles.index(Role.PRESIDENT)
        sizes = round_deal(state, round_no)
        assert [sizes[(president + k) % 5].bit_count() for k in range(5)] == [11, 11, 11, 10, 10]
        plain = Rules.preset("classic", players=5, jokers=1, rounds=3)
        assert round_deal(state._replace(rules=plain), round_no)[0].bit_count() == 11


def test_roles_reset_every_n_rounds() -> None:
    rules = Rules.preset("classic", players=4, rounds=5, reset_every=2)
    state = new_series(rules, 5)
    for round_no, exchange in ((2, True), (3, False), (4, True), (5, False)):
        state, events = _to_round(state, round_no)
        started = next(e for e in events if isinstance(e, RoundStarted))
        assert started.exchange is exchange and (state.roles is None) is not exchange
        if not exchange:  # played as round 1: the 3 of clubs leads, from a deal at seat 0
            assert state.hands[state.to_act] & 1 and state.phase is Phase.PLAY


# --- passing on an empty table, and the endless-passing rule (§2.7, §5) -------------------


def _run(state: State, *actions: str) -> tuple[State, list[object]]:
    events: list[object] = []
    for action in actions:
        state, new = apply(state, parse_action(action))
        events += new
    return state, events


def test_the_leader_may_pass_and_is_out_of_the_trick() -> None:
    state = position("classic", ("5H 9H", "4C 6C", "4D 6D"), lead_pass=True)
    assert "pass" in _texts(state)
    state, _ = _run(state, "pass")
    assert state.to_act == 1 and state.trick == ()  # the next seat leads
    state, _ = _run(state, "4C", "6D")
    assert state.to_act == 1  # seat 0 passed this trick: no turn until it ends
    with pytest.raises(CannotPassLead):
        apply(position("classic", ("5H 9H", "4C 6C", "4D 6D")), parse_action("pass"))


def test_when_everyone_passes_an_empty_trick_the_last_to_play_leads_again() -> None:
    state = position("classic", ("5H 9H", "4C 6C", "4D 6D"), lead_pass=True)
    state, _ = _run(state, "5H", "pass", "pass")  # seat 0 wins the trick and leads
    state, events = _run(state, "pass", "pass", "pass")
    assert TrickWon(0, False, 0) in events
    assert state.to_act == 0 and state.passed == 0 and state.trick == ()


def test_twenty_passes_in_a_row_end_the_round_by_lot() -> None:
    """UECda: the counter counts passes in a row, trick ends do not reset it; at the limit
    every player still holding cards gets one of the places left, in random order."""
    hands = ("5H 9H KD", "4C 6C", "4D 6D", "3S 8S")
    outcomes = set()
    for seed in range(8):
        state = position("classic", hands, lead_pass=True, pass_limit=5, rounds=1, seed=seed)
        state, events = _run(state, "9H", "pass", "pass", "pass")  # 3 passes, seat 0 leads
        assert not any(isinstance(e, RoundEnded) for e in events)
        state, events = _run(state, "pass", "pass")  # the 5th pass in a row
        ended = next(e for e in events if isinstance(e, RoundEnded))
        assert sorted(ended.result.ranking) == [0, 1, 2, 3] and state.is_over
        outcomes.add(ended.result.ranking)
        again = position("classic", hands, lead_pass=True, pass_limit=5, rounds=1, seed=seed)
        assert _run(again, "9H", *["pass"] * 5)[0] == state  # by a lot drawn from the seed
    assert len(outcomes) > 1


# --- the uecda preset: UECDA.md's own examples, all rules at once ----------------------


def _uecda(hands: tuple[str, ...], **kwargs: object) -> State:
    return position("uecda", hands, **kwargs)  # type: ignore[arg-type]


def test_uecda_weakest_answer_on_a_straight_any_suit_or_the_locked_one() -> None:
    # §2.2: "on ♠5-6-7 the weakest answer is 8-9-10 of any suit, or of the locked suit"
    hands = ("", "8D 9D TD 8S 9S TS 6H 7H 8H", "QC", "KC", "AC")
    free = _uecda(hands, to_act=1, trick=[(0, "5S-6S-7S")])
    runs = {t for t in _texts(free) if "-" in t}
    assert {"8D-9D-TD", "8S-9S-TS"} <= runs and "6H-7H-8H" not in runs
    locked = _uecda(hands, to_act=1, trick=[(2, "JR-3S-4S"), (0, "5S-6S-7S")])
    assert {t for t in _texts(locked) if "-" in t} == {"8S-9S-TS"}


def test_uecda_a_long_straight_through_the_eight_revolts_and_cuts() -> None:
    # §2.4: "a play that revolutionises and also contains an 8 does both"
    state = _uecda(("4H 5H 6H 7H 8H KS", "9C", "TC", "JC", "QC"))
    after, events = apply(state, parse_action("4H-5H-6H-7H-8H"))
    assert after.reversed and any(isinstance(e, Revolution) for e in events)
    won = next(e for e in events if isinstance(e, TrickWon))
    assert won.closed and after.to_act == 0 and after.trick == ()


@pytest.mark.parametrize("hand, play, cuts", [
    ("8H JR KS", "8H JR=8S", True),  # "including a group where the joker stands for an 8"
    ("7H 9H JR KS", "7H-JR-9H", True),  # "a straight where the joker fills the 8"
    ("JR KS", "JR", False),  # "the lone joker never 8-cuts"
    ("2H KS", "2H", False),  # "2s do not end tricks"
])
def test_uecda_eight_cuts(hand: str, play: str, cuts: bool) -> None:
    state = _uecda((hand, "9C", "TC", "JC", "QC"))
    after, events = apply(state, parse_action(play))
    assert any(isinstance(e, TrickWon) and e.closed for e in events) is cuts


def test_uecda_any_card_may_be_the_last() -> None:
    # §2.6: "joker, 2, 8, ♠3": no forbidden finish
    for last in ("JR", "2S", "8C", "3S"):
        state = _uecda((last, "9C 9D", "TC TD", "JC JD", "QC QD"))
        after, events = apply(state, parse_action(last))
        assert after.hands[0] == 0 and after.went_out == (0,)


def test_uecda_the_deal_and_the_three_of_diamonds() -> None:
    for seed in range(3):
        state = new_series(Rules.preset("uecda"), seed)
        assert sorted(h.bit_count() for h in state.hands) == [10, 10, 11, 11, 11]
        assert state.hands[state.to_act] & THREE_OF_DIAMONDS  # "every game"
