"""Literal scenarios from the sources, checked through legal_actions, apply and check.

Source numbers are the files of shared/rules/: 000 straights option, 001 revolution
option, 003 classic article, 004 CardVerse sheet. "decision" marks a choice of
docs/rules.md where the sources are silent.
"""

from __future__ import annotations

import pickle
from typing import Any

import pytest

import engine.game
from engine import (
    PASS, AlreadyOut, AlreadyPassed, BadExchange, CannotPassLead, CardNotInHand, CardsGiven,
    ExchangeDone, GameOver, Give, GroupOnStraight, IllegalAction, NotStrongEnough, NotYourTurn,
    OptionDisabled, Passed, Phase, Played, Revolution, Role, RoundEnded, RoundStarted, Rules,
    SeriesEnded, Skipped, State, StraightOnGroup, TrickWon, WentOut, WrongPhase, WrongSize,
    apply, check, legal_actions, new_series, new_series_with_events, parse_action, parse_cards,
)
from engine.legal import lead_plays
from helpers import act, mask, of_type, play, position, texts

P, VP, N, VT, T = Role.PRESIDENT, Role.VICE_PRESIDENT, Role.NEUTRE, Role.VICE_TROU, Role.TROU

CODES = {
    NotYourTurn: "not_your_turn", AlreadyPassed: "already_passed", AlreadyOut: "already_out",
    CardNotInHand: "card_not_in_hand", WrongSize: "wrong_size",
    NotStrongEnough: "not_strong_enough", GroupOnStraight: "group_on_straight",
    StraightOnGroup: "straight_on_group", OptionDisabled: "option_disabled",
    CannotPassLead: "cannot_pass_lead", WrongPhase: "wrong_phase", GameOver: "game_over",
    BadExchange: "bad_exchange",
}


def assert_rejected(state: State, text: str, error: type[IllegalAction], seat: int | None = None) -> None:
    """The action raises ``error`` with its code, from check and apply, and changes nothing."""
    before = pickle.loads(pickle.dumps(state))
    action = parse_action(text)
    with pytest.raises(error) as info:
        check(state, action, seat)
    assert type(info.value) is error and info.value.code == CODES[error]
    with pytest.raises(error):
        apply(state, action, seat)
    assert state == before
    if seat is None or seat == state.to_act:
        assert action not in legal_actions(state)
        assert action not in list(legal_actions(state))


def assert_accepted(state: State, text: str) -> tuple[State, list[Any]]:
    action = parse_action(text)
    assert action in legal_actions(state)
    assert action in list(legal_actions(state))
    check(state, action)
    return apply(state, action)


def fixed_deal(monkeypatch: pytest.MonkeyPatch, rounds: dict[int, list[str]]) -> None:
    """Make the deal of the given rounds the literal hands (the deck is random otherwise)."""
    real = engine.game.deal

    def deal(rules: Any, seed: int, round_no: int, start: int = 0) -> tuple[int, ...]:
        if round_no in rounds:
            return tuple(mask(h) for h in rounds[round_no])
        return real(rules, seed, round_no, start)

    monkeypatch.setattr(engine.game, "deal", deal)


OTHERS = ["QC", "QD"]  # the other two seats' hands when only seat 0 matters


# --- following: strength, size, kind ----------------------------------------------------

FOLLOW = [
    # (source, preset, overrides, reversed, hand, top, play, error or None)
    ("003: a stronger rank beats", "classic", {}, False, "8S", "7H", "8S", None),
    ("003: 2 is the strongest", "classic", {}, False, "2S", "AH", "2S", None),
    ("003: a weaker rank does not", "classic", {}, False, "6S", "7H", "6S", NotStrongEnough),
    ("003: no equal match in classic", "classic", {}, False, "7S", "7H", "7S", NotStrongEnough),
    ("004: 'égaliser n'est pas permis'", "cardverse", {}, False, "7S", "7H", "7S", NotStrongEnough),
    ("000: the club ruleset may equal", "club", {}, False, "7S", "7H", "7S", None),
    ("000: club pairs may equal", "club", {}, False, "7C 7S", "7D 7H", "7C 7S", None),
    ("001: revolution, lower wins", "cardverse", {}, True, "6S", "7H", "6S", None),
    ("001: revolution, higher loses", "cardverse", {}, True, "8S", "7H", "8S", NotStrongEnough),
    ("001: revolution, 3 strongest", "cardverse", {}, True, "3S", "4H", "3S", None),
    ("001: revolution, 2 weakest", "cardverse", {}, True, "2S", "AH", "2S", NotStrongEnough),
    ("001: single joker beats a 2", "classic", {"jokers": 1}, False, "JR", "2H", "JR", None),
    ("001: single joker beats a 3 in revolution", "cardverse", {"jokers": 1}, True, "JR", "3H", "JR", None),
    ("decision: nothing beats the single joker", "full", {}, False, "2S JB", "JR", "2S", NotStrongEnough),
    ("decision: nor equals it", "full", {}, False, "2S JB", "JR", "JB", NotStrongEnough),
    ("decision: nor beats it in revolution", "full", {}, True, "3S JB", "JR", "3S", NotStrongEnough),
    ("003: same size", "classic", {}, False, "8C 8D", "7H", "8C 8D", WrongSize),
    ("003: same size (pair)", "classic", {}, False, "8C 8D", "7H 7S", "8C", WrongSize),
    ("001: the single joker follows singles only", "full", {}, False, "JR", "7H 7S", "JR", WrongSize),
    ("003: a card not in hand", "classic", {}, False, "8C", "7H", "8D", CardNotInHand),
    ("000: no group on a straight", "club", {"straights": True}, False, "8C 8D 8H", "5H-6H-7H", "8C 8D 8H", GroupOnStraight),
    ("000: no joker on a straight", "full", {}, False, "JB", "5H-6H-7H", "JB", GroupOnStraight),
    ("000: no straight on a group", "club", {"straights": True}, False, "8C 9C TC", "7D 7H 7S", "8C-9C-TC", StraightOnGroup),
    ("000: straights of the same length", "club", {"straights": True}, False, "8C 9C TC JC", "5H-6H-7H", "8C-9C-TC-JC", WrongSize),
    ("000: any suit, highest card higher", "classic", {"straights": True}, False, "6C 7C 8C", "5H-6H-7H", "6C-7C-8C", None),
    ("000: classic straights must beat", "classic", {"straights": True}, False, "5C 6C 7C", "5H-6H-7H", "5C-6C-7C", NotStrongEnough),
    ("000: club straights may equal", "club", {"straights": True}, False, "5C 6C 7C", "5H-6H-7H", "5C-6C-7C", None),
    ("000: revolution, lowest card lower", "club", {"straights": True}, True, "4C 5C 6C", "5H-6H-7H", "4C-5C-6C", None),
    ("000: revolution, lowest card higher", "club", {"straights": True}, True, "6C 7C 8C", "5H-6H-7H", "6C-7C-8C", NotStrongEnough),
    ("000: revolution, club may equal", "club", {"straights": True}, True, "5C 6C 7C", "5H-6H-7H", "5C-6C-7C", None),
    ("000: a joker in a straight", "full", {}, False, "9C JR JC", "5H-6H-7H", "9C-JR-JC", None),
    ("000: straights are an option", "classic", {}, False, "5C 6C 7C", "3H 3S", "5C-6C-7C", OptionDisabled),
]


@pytest.mark.parametrize("source, preset, overrides, reversed_, hand, top, text, error", FOLLOW,
                         ids=[row[0] for row in FOLLOW])
def test_following(source: str, preset: str, overrides: dict[str, Any], reversed_: bool,
                   hand: str, top: str, text: str, error: type[IllegalAction] | None) -> None:
    state = position(preset, [hand, *OTHERS], trick=[(2, top)], reversed=reversed_, **overrides)
    if error is not None:
        assert_rejected(state, text, error)
        return
    after, events = assert_accepted(state, text)
    assert events[0] == Played(0, play(text))
    assert after.trick[-1] == (0, play(text))


def test_nothing_but_pass_on_the_single_joker() -> None:
    # decision (001: the single joker is the strongest play): the others can only pass
    state = position("full", ["2C 2D JB 3S 7H", *OTHERS], trick=[(2, "JR")])
    assert list(legal_actions(state)) == [PASS]


LEADS: list[tuple[str, str, dict[str, Any], str, str, type[IllegalAction]]] = [
    ("003: the leader may not pass", "classic", {}, "7H", "pass", CannotPassLead),
    ("003: leading a card not in hand", "classic", {}, "7H", "8H", CardNotInHand),
    ("000: no straights unless the option is on", "classic", {}, "5C 6C 7C", "5C-6C-7C", OptionDisabled),
    ("003: no joker in the deck by default", "classic", {}, "7H", "JR", CardNotInHand),
]


@pytest.mark.parametrize("source, preset, overrides, hand, text, error", LEADS, ids=[r[0] for r in LEADS])
def test_leading_errors(source: str, preset: str, overrides: dict[str, Any], hand: str, text: str,
                        error: type[IllegalAction]) -> None:
    assert_rejected(position(preset, [hand, *OTHERS], **overrides), text, error)


# --- closing plays ---------------------------------------------------------------------

CLOSING = [
    # (source, preset, overrides, reversed, play led by seat 0, closes)
    ("000: a group of 2s closes (club)", "club", {}, False, "2C 2D", True),
    ("003: 2s do not close in classic", "classic", {}, False, "2C 2D", False),
    ("000: a straight ending on a 2 does not close", "club", {"straights": True}, False, "KH-AH-2H", False),
    ("001: 3s close during a revolution", "club", {"revolution": True}, True, "3C", True),
    ("001: 2s are the weakest then, and do not close", "club", {"revolution": True}, True, "2C 2D", False),
    ("000: a group of 8s closes", "club", {"eights_close": True}, False, "8C 8D", True),
    ("000: a single 8 closes", "club", {"eights_close": True}, False, "8C", True),
    ("000: 8s only close with the option", "club", {}, False, "8C 8D", False),
    ("000: a straight through an 8 closes", "club", {"straights": True, "eights_close": True}, False, "7H-8H-9H", True),
    ("000: a straight starting on the 8 closes", "club", {"straights": True, "eights_close": True}, False, "8H-9H-TH", True),
    ("000: a joker standing as the 8 closes", "club", {"straights": True, "eights_close": True, "jokers": 1}, False, "7H-JR-9H", True),
    ("000: a straight missing the 8 does not", "club", {"straights": True, "eights_close": True}, False, "9H-TH-JH", False),
    ("000: straight through an 8 without the option", "club", {"straights": True}, False, "7H-8H-9H", False),
    ("decision: the single joker does not close", "full", {}, False, "JR", False),
    ("decision: a quad of 2s in normal order closes", "club", {"revolution": True}, False, "2C 2D 2H 2S", True),
    ("decision: a quad of 3s in normal order does not", "club", {"revolution": True}, False, "3C 3D 3H 3S", False),
    ("004: a quad does not close by itself", "cardverse", {}, False, "9C 9D 9H 9S", False),
]


@pytest.mark.parametrize("source, preset, overrides, reversed_, text, closes", CLOSING,
                         ids=[row[0] for row in CLOSING])
def test_closing_plays(source: str, preset: str, overrides: dict[str, Any], reversed_: bool,
                       text: str, closes: bool) -> None:
    hand = " ".join(str(c) for c in play(text).cards) + " 5S"  # keeps a card: not going out
    state = position(preset, [hand, *OTHERS], reversed=reversed_, **overrides)
    after, events = assert_accepted(state, text)
    if closes:
        assert of_type(events, TrickWon) == [TrickWon(0, True, 0)]
        assert (after.to_act, after.trick, after.passed) == (0, (), 0)
        assert after.discard == play(text).mask
    else:
        assert of_type(events, TrickWon) == []
        assert (after.to_act, after.trick) == (1, ((0, play(text)),))


def test_three_closes_when_following_in_a_revolution() -> None:
    # 001: "pendant une révolution, c'est un groupe de 3 qui ferme le pli"
    state = position("club", ["9C", "3S 7D", "KC"], to_act=1, trick=[(0, "4H")], reversed=True,
                     revolution=True)
    after, events = act(state, "3S")
    assert of_type(events, TrickWon) == [TrickWon(1, True, 1)]
    assert after.to_act == 1 and after.reversed  # still in revolution for the next trick


# --- revolution ------------------------------------------------------------------------


def test_quad_is_judged_in_the_order_in_force_and_the_next_play_reversed() -> None:
    # 001: "Le carré lui-même est jugé dans l'ordre en vigueur ...; le coup suivant est
    # jugé dans l'ordre inversé."
    hands = ["5C 5D 5H 5S 9C", "4C 4D 4H 4S 6C 6D 6H 6S", "7C 7D 7H 7S 3C 3D 3H 3S"]
    state = position("cardverse", hands)
    state, events = act(state, "5C 5D 5H 5S")
    assert of_type(events, Revolution) == [Revolution(True)] and state.reversed
    assert texts(legal_actions(state)) == ["4C 4D 4H 4S", "pass"]
    assert_rejected(state, "6C 6D 6H 6S", NotStrongEnough)
    state, events = act(state, "4C 4D 4H 4S")  # judged reversed: lower wins; counter-revolution
    assert of_type(events, Revolution) == [Revolution(False)] and not state.reversed
    assert texts(legal_actions(state)) == ["7C 7D 7H 7S", "pass"]  # normal order again
    assert_rejected(state, "3C 3D 3H 3S", NotStrongEnough)


@pytest.mark.parametrize("source, reversed_, quad, order_after", [
    ("decision: a quad of 2s in normal order closes, then revolution", False, "2C 2D 2H 2S", True),
    ("decision: a quad of 3s in revolution closes, then normal order", True, "3C 3D 3H 3S", False),
])
def test_a_closing_quad_still_reverses(source: str, reversed_: bool, quad: str, order_after: bool) -> None:
    # 001: every quad reverses; closing is judged in the order in force when played
    state = position("club", [quad + " 9C 9D", *OTHERS], reversed=reversed_, revolution=True)
    state, events = act(state, quad)
    assert events == [Played(0, play(quad)), Revolution(order_after), TrickWon(0, True, 0)]
    assert state.reversed is order_after
    assert texts(legal_actions(state)) == ["9C", "9D", "9C 9D"]


@pytest.mark.parametrize("source, preset, text, reverses", [
    ("001: triple + joker counts as a quad", "full", "9C 9D 9H JR", True),
    ("decision: pair + two jokers too", "full", "9C 9D JR JB", True),
    ("001: a natural quad", "cardverse", "9C 9D 9H 9S", True),
    ("000: a straight of four does not", "full", "9H-TH-JH-QH", False),
    ("001: no revolution unless the option is on", "club", "9C 9D 9H 9S", False),
    ("001: a triple does not", "cardverse", "9C 9D 9H", False),
])
def test_what_starts_a_revolution(source: str, preset: str, text: str, reverses: bool) -> None:
    hand = " ".join(str(c) for c in play(text).cards) + " 5S"
    after, events = act(position(preset, [hand, *OTHERS]), text)
    assert after.reversed is reverses
    assert of_type(events, Revolution) == ([Revolution(True)] if reverses else [])


# --- passing, winning a trick ----------------------------------------------------------


def test_passing_is_final_and_the_trick_ends_when_the_others_have_passed() -> None:
    # 003, 004: "Passer reste définitif jusqu'à la remise à zéro du pli"
    state = position("classic", ["5H 9C", "6H 9D", "7H 9H"])
    state, _ = act(state, "5H", "pass", "7H")
    assert state.to_act == 0  # seat 1 passed: it is not offered the turn again
    assert_rejected(state, "9D", AlreadyPassed, seat=1)
    state, events = act(state, "pass")
    assert events == [Passed(0), TrickWon(2, False, 2)]
    # 003: the winner leads the next trick, with anything
    assert (state.to_act, state.trick, state.passed) == (2, (), 0)
    assert texts(legal_actions(state)) == ["9H"]
    assert state.discard == mask("5H 7H")


def test_the_lead_passes_to_the_next_seat_in_when_the_winner_is_out() -> None:
    # 004: "Si le joueur qui doit relancer a déjà fini, l'initiative passe au prochain
    # joueur encore actif." Seat 2 is already out, seat 1 goes out winning the trick.
    state = position("classic", ["5H 9C", "KH", "", "6C 7C"], went_out=[2])
    state, events = act(state, "5H", "KH")
    assert WentOut(1, 2, False) in events and state.to_act == 3
    state, events = act(state, "pass", "pass")
    assert events[-1] == TrickWon(1, False, 3)
    assert state.to_act == 3 and state.trick == ()


def test_a_closing_play_that_goes_out_gives_the_lead_to_the_next_seat_in() -> None:
    # 000 (2s close) + 004 (lead passes on)
    state = position("club", ["5H 9C", "2H", "", "6C 7C"], went_out=[2])
    state, events = act(state, "5H", "2H")
    assert events[-1] == TrickWon(1, True, 3) and state.to_act == 3


# --- skip on match ('ça passe ou ça casse', 003) -------------------------------------------


def test_skip_on_match_makes_the_next_seat_lose_its_turn() -> None:
    # 003: "poser exactement la même valeur que le joueur précédent (un 8 sur un 8) fait
    # sauter le tour du suivant"
    state = position("classic-variants", ["8H 9C", "8S 9D", "KC 9H", "AC 9S"])
    state, events = act(state, "8H", "8S")
    assert events == [Played(0, play("8H")), Played(1, play("8S")), Skipped(2)]
    assert state.to_act == 3
    assert_rejected(state, "KC", AlreadyPassed, seat=2)  # decision: the skip is its pass
    state, events = act(state, "pass", "pass")
    assert events[-1] == TrickWon(1, False, 1)


def test_a_skip_can_end_the_trick() -> None:
    # decision: the lost turn counts as a pass, so everyone else has now passed
    state = position("classic-variants", ["8H 9C", "KS 9D", "8S 9H"])
    state, events = act(state, "8H", "pass", "8S")
    assert events[-2:] == [Skipped(0), TrickWon(2, False, 2)]
    assert state.to_act == 2 and state.trick == ()


@pytest.mark.parametrize("source, preset, overrides, top, text", [
    ("003: beating is no match", "classic-variants", {}, "8H", "9S"),
    ("decision: groups only, not straights", "full", {"skip_on_match": True}, "5H-6H-7H", "5C-6C-7C"),
    ("003: a variant, off in club", "club", {}, "8H", "8S"),
])
def test_no_skip(source: str, preset: str, overrides: dict[str, Any], top: str, text: str) -> None:
    hand = " ".join(str(c) for c in play(text).cards) + " 4S"
    state = position(preset, ["4C", hand, "4D"], to_act=1, trick=[(0, top)], **overrides)
    after, events = act(state, text)
    assert of_type(events, Skipped) == [] and after.to_act == 2


def test_a_closing_match_closes_instead_of_skipping() -> None:
    # decision: a closing play ends the trick instead
    state = position("full", ["4C", "2S 4S", "4D"], to_act=1, trick=[(0, "2H")], skip_on_match=True)
    after, events = act(state, "2S")
    assert of_type(events, Skipped) == [] and events[-1] == TrickWon(1, True, 1)


# --- going out, end of round, roles, scores -------------------------------------------------

ROLES = {
    3: (P, N, T),
    4: (P, VP, VT, T),
    5: (P, VP, N, VT, T),
    8: (P, VP, N, N, N, N, VT, T),
}


@pytest.mark.parametrize("players", ROLES)
def test_the_round_ends_when_one_player_is_left_who_is_trou_du_cul(players: int) -> None:
    # 003: "jusqu'à ce qu'il n'en reste qu'un, cartes en main : le Trou du cul"; roles
    # 003/004; 004: N points to the first, one less per place, 1 to the last
    hands = [""] * (players - 2) + ["5H", "9C 9D"]
    state = position("classic", hands, to_act=players - 2, went_out=range(players - 2), rounds=1)
    state, events = act(state, "5H")
    result = of_type(events, RoundEnded)[0].result
    assert result.went_out == result.ranking == tuple(range(players))
    assert result.roles == ROLES[players]
    assert result.points == tuple(range(players, 0, -1))
    assert state.scores == result.points


def test_scoring_four_three_two_one() -> None:
    # 004 with four players: seats out in the order 2, 0, 1; seat 3 is left
    state = position("classic", ["", "5H", "", "9C"], to_act=1, went_out=[2, 0])
    state, events = act(state, "5H")
    result = of_type(events, RoundEnded)[0].result
    assert result.ranking == (2, 0, 1, 3)
    assert result.roles == (VP, VT, P, T)
    assert result.points == (3, 2, 4, 1)


def test_scores_add_up_over_the_series_and_the_standing_breaks_ties_by_the_last_round() -> None:
    # 004: "Les points s'additionnent en série"; decision: ties by the last round's ranking
    state = position("classic", ["", "5H", "", "9C"], to_act=1, went_out=[2, 0], rounds=2)
    state = state._replace(round_no=2, scores=(1, 2, 3, 4))
    state, events = act(state, "5H")
    assert state.scores == (4, 4, 7, 5)
    assert state.phase is Phase.OVER and state.to_act == -1
    outcome = of_type(events, SeriesEnded)[0].outcome
    assert outcome == state.outcome
    assert outcome.standing == (2, 3, 0, 1) and outcome.winners == (2,)


def test_game_over_after_the_last_round() -> None:
    state = position("classic", ["", "5H", "9C"], to_act=1, went_out=[0], rounds=1)
    state, events = act(state, "5H")
    assert isinstance(events[-1], SeriesEnded)
    assert not legal_actions(state) and list(legal_actions(state)) == []
    for text in ("9C", "pass", "give 9C"):
        assert_rejected(state, text, GameOver)
    assert_rejected(state, "9C", GameOver, seat=2)


def test_a_series_plays_its_rounds_then_ends() -> None:
    # 004: "Une partie se termine après le nombre de manches configuré"
    state = position("classic", ["", "5H", "9C"], to_act=1, went_out=[0], rounds=2)
    state, events = act(state, "5H")
    assert of_type(events, SeriesEnded) == [] and state.round_no == 2
    assert of_type(events, RoundStarted) == [RoundStarted(2, state.leader, True)]


# --- no finishing on a 2 (003 variant) ------------------------------------------------------

FINISH = [
    # (source, preset, overrides, reversed, last play, penalized)
    ("003: finishing on a 2", "classic-variants", {}, False, "2H", True),
    ("003: a pair of 2s", "classic-variants", {}, False, "2H 2S", True),
    ("003: an ace is fine", "classic-variants", {}, False, "AH", False),
    ("003: legal at other tables", "classic", {}, False, "2H", False),
    ("decision: a 3 during a revolution", "classic-variants", {}, True, "3H", True),
    ("decision: a 2 during a revolution is the weakest", "classic-variants", {}, True, "2H", False),
    ("decision: the single joker", "classic-variants", {"jokers": 1}, False, "JR", True),
    ("decision: a joker standing in for a 2", "classic-variants", {"jokers": 1}, False, "2H JR", True),
    ("decision: a joker with an ace", "classic-variants", {"jokers": 1}, False, "AH JR", False),
    ("decision: a straight ending on a 2", "classic-variants", {"straights": True}, False, "KH-AH-2H", True),
    ("decision: a joker as the 2 of a straight", "classic-variants", {"straights": True, "jokers": 1}, False, "KH-AH-JR", True),
    ("decision: a straight without a 2", "classic-variants", {"straights": True}, False, "JH-QH-KH", False),
    ("decision: a straight from the 3 in revolution", "classic-variants", {"straights": True}, True, "3H-4H-5H", True),
    ("decision: a quad of 2s, judged before it reverses", "classic-variants", {}, False, "2C 2D 2H 2S", True),
    ("decision: a quad of 3s in normal order", "classic-variants", {}, False, "3C 3D 3H 3S", False),
]


@pytest.mark.parametrize("source, preset, overrides, reversed_, text, penalized", FINISH,
                         ids=[row[0] for row in FINISH])
def test_going_out_on_the_strongest_rank(source: str, preset: str, overrides: dict[str, Any],
                                         reversed_: bool, text: str, penalized: bool) -> None:
    hand = " ".join(str(c) for c in play(text).cards)
    state = position(preset, [hand, *OTHERS], reversed=reversed_, **overrides)
    after, events = act(state, text)
    assert of_type(events, WentOut) == [WentOut(0, 1, penalized)]
    assert after.hands[0] == 0 and after.went_out == (0,)


def test_finishing_on_a_2_makes_you_trou_du_cul() -> None:
    # 003: "celui qui termine sur un 2 devient automatiquement Trou du cul"
    state = position("classic-variants", ["2H", "5C", "9C"], rounds=1)
    state, events = act(state, "2H", "pass", "pass", "5C")
    result = of_type(events, RoundEnded)[0].result
    assert result.went_out == (0, 1, 2)
    assert result.ranking == (1, 2, 0) and result.roles == (T, P, N)
    assert result.penalized == (0,)


def test_two_offenders_keep_their_going_out_order() -> None:
    # decision: offenders rank below everyone else, the first offender highest of them
    state = position("classic-variants", ["", "2S", "5H", "9C"], to_act=1, went_out=[0],
                     penalized=[0], rounds=1)
    state, events = act(state, "2S", "pass", "pass", "5H")
    result = of_type(events, RoundEnded)[0].result
    assert result.went_out == (0, 1, 2, 3)
    assert result.ranking == (2, 3, 0, 1)
    assert result.roles == (VT, T, P, VP) and result.points == (2, 1, 4, 3)
    assert result.penalized == (0, 1)


# --- who leads a round ------------------------------------------------------------------------

ROUND_ONE = ["4C 5C 6C", "7C 8C 9C", "3C TC JC", "QC KC AC"]


@pytest.mark.parametrize("source, preset, leader", [
    ("003: 'le détenteur du 3 de trèfle ouvre'", "classic", 2),
    ("004: 'Le premier siège commence la première manche'", "cardverse", 0),
])
def test_first_lead(monkeypatch: pytest.MonkeyPatch, source: str, preset: str, leader: int) -> None:
    fixed_deal(monkeypatch, {1: ROUND_ONE})
    state, events = new_series_with_events(Rules.preset(preset), 0)
    assert events == [RoundStarted(1, leader, False)]
    assert (state.to_act, state.leader, state.phase) == (leader, leader, Phase.PLAY)


def test_the_three_of_clubs_need_not_be_led(monkeypatch: pytest.MonkeyPatch) -> None:
    # decision: 003 only says who opens; 004: "le 3 de trèfle n'est pas imposé"
    fixed_deal(monkeypatch, {1: ROUND_ONE})
    state = new_series(Rules.preset("classic"), 0)
    assert texts(legal_actions(state))[:3] == ["3C", "TC", "JC"]
    assert_accepted(state, "JC")


@pytest.mark.parametrize("seed", range(6))
def test_real_deals_open_with_the_three_of_clubs_holder(seed: int) -> None:
    # 003 on the engine's own deal
    state = new_series(Rules.preset("classic", players=5), seed)
    assert state.hands[state.to_act] & mask("3C")


# --- the exchange -------------------------------------------------------------------------------

# The round that ends here: seats out 2, 0, then seat 1; seat 3 is left. So Président 2,
# Vice-Président 0, Vice-Trou 1, Trou du cul 3.
END_OF_ROUND_ONE: dict[str, Any] = dict(hands=["", "4C", "", "9C 9D"], to_act=1, went_out=[2, 0])


def round_two_hands(trou: str) -> list[str]:
    return ["3C 4C 5C KC", "3D 4D AD 6D", "3H 4H 5H 6H", trou]


@pytest.mark.parametrize("source, jokers, trou_hand, best", [
    ("003: 'S'il a deux 2, il donne deux 2'", 0, "2C 2S 7S 8S 3S", "2C 2S"),
    ("003: his two best cards", 0, "AC 2H KS 3S", "AC 2H"),
    ("RULES.md: a joker is the best card", 1, "JR 5C 2D 3S", "2D JR"),
    ("decision: of one rank, the higher suit bit first", 0, "2C 2D 2S 3S", "2D 2S"),
])
def test_the_trou_du_cul_gives_his_two_best_cards(monkeypatch: pytest.MonkeyPatch, source: str,
                                                  jokers: int, trou_hand: str, best: str) -> None:
    state = position("classic", **END_OF_ROUND_ONE, jokers=jokers)
    fixed_deal(monkeypatch, {2: round_two_hands(trou_hand)})
    state, events = act(state, "4C")
    assert of_type(events, CardsGiven) == [
        CardsGiven(3, 2, 2, parse_cards(best.split()), automatic=True),
        CardsGiven(1, 0, 1, parse_cards(["AD"]), automatic=True),  # 004: vice-ranks, one card
    ]
    assert state.hands[3] == mask(trou_hand) & ~mask(best)
    assert state.hands[2] == mask("3H 4H 5H 6H " + best)
    assert (state.phase, state.to_act, state.pending) == (Phase.EXCHANGE, 2, ((2, 3, 2), (0, 1, 1)))


def exchange_state(monkeypatch: pytest.MonkeyPatch, **options: Any) -> State:
    """Round 2 of a four-player series, the Président (seat 2) about to give back."""
    state = position("classic", **END_OF_ROUND_ONE, **options)
    fixed_deal(monkeypatch, {2: round_two_hands("2C 2S 7S 8S 3S")})
    return act(state, "4C")[0]


def test_the_president_chooses_two_cards_to_give_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # 003: "Le Président lui rend deux cartes de son choix"
    state = exchange_state(monkeypatch)
    gives = texts(legal_actions(state))
    assert len(gives) == 15 and gives[0] == "give 3H 4H" and gives[-1] == "give 2C 2S"
    assert_rejected(state, "give 3H", BadExchange)
    assert_rejected(state, "give 3H 4H 5H", BadExchange)
    assert_rejected(state, "give 3H 9S", CardNotInHand)
    assert_rejected(state, "3H", WrongPhase)  # a play during the exchange
    assert_rejected(state, "pass", WrongPhase)
    assert_rejected(state, "give 3S 7S", NotYourTurn, seat=3)
    state, events = act(state, "give 3H 5H")
    assert events == [CardsGiven(2, 3, 2, parse_cards(["3H", "5H"]), automatic=False)]
    assert state.hands[3] == mask("7S 8S 3S 3H 5H")
    assert (state.to_act, state.pending) == (0, ((0, 1, 1),))


def test_the_vice_president_gives_one_back_then_the_trou_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    # 004: "les vice-rangs échangent de même une carte"; 003: the Trou du cul leads
    state = exchange_state(monkeypatch)
    state, _ = act(state, "give 2C 2S")  # decision: the cards just received may go back
    assert_rejected(state, "give 3C 4C", BadExchange)
    state, events = act(state, "give 3C")
    assert events == [CardsGiven(0, 1, 1, parse_cards(["3C"]), automatic=False), ExchangeDone(3)]
    assert (state.phase, state.to_act, state.pending) == (Phase.PLAY, 3, ())
    assert state.hands[1] == mask("3D 4D 6D 3C")
    assert_rejected(state, "give 2C", WrongPhase)  # a gift during play


@pytest.mark.parametrize("later_lead, leader", [("trou", 3), ("president", 2)])
def test_later_rounds_lead(monkeypatch: pytest.MonkeyPatch, later_lead: str, leader: int) -> None:
    # 003: "c'est le Trou du cul qui entame — même si beaucoup de tables font ouvrir le Président"
    state = exchange_state(monkeypatch, later_lead=later_lead)
    assert state.leader == leader
    state, events = act(state, "give 3H 4H", "give 3C")
    assert events[-1] == ExchangeDone(leader) and state.to_act == leader


@pytest.mark.parametrize("later_lead, leader", [("trou", 3), ("president", 2)])
def test_without_the_exchange_round_two_starts_at_once(monkeypatch: pytest.MonkeyPatch,
                                                       later_lead: str, leader: int) -> None:
    state = position("classic", **END_OF_ROUND_ONE, exchange=False, later_lead=later_lead)
    fixed_deal(monkeypatch, {2: round_two_hands("2C 2S 7S 8S 3S")})
    state, events = act(state, "4C")
    assert of_type(events, CardsGiven) == []
    assert RoundStarted(2, leader, False) in events
    assert (state.phase, state.to_act, state.hands[3]) == (Phase.PLAY, leader, mask("2C 2S 7S 8S 3S"))


def test_with_three_players_only_president_and_trou_exchange(monkeypatch: pytest.MonkeyPatch) -> None:
    # 003: "À trois, on garde Président, Neutre et Trou du cul"; the Neutre exchanges nothing
    state = position("classic", ["5C", "", "9C"], went_out=[1])  # Président 1, Neutre 0, Trou 2
    fixed_deal(monkeypatch, {2: ["AS KS 3C", "3D 4D 5D", "2H AH 4S"]})
    state, events = act(state, "5C")
    assert of_type(events, CardsGiven) == [CardsGiven(2, 1, 2, parse_cards(["AH", "2H"]), True)]
    assert state.pending == ((1, 2, 2),) and state.to_act == 1
    state, events = act(state, "give 3D 4D")
    assert events[-1] == ExchangeDone(2)
    assert state.hands == (mask("AS KS 3C"), mask("5D AH 2H"), mask("4S 3D 4D"))


def test_with_five_players_the_neutre_exchanges_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # 003: "Le Neutre n'échange rien"; 004: vice-ranks exchange one card from four players
    state = position("classic", ["", "", "", "5C", "9C"], to_act=3, went_out=[0, 1, 2])
    deal = ["3C 4C 5C", "3D 4D 5D", "3H 4H 2H", "3S 4S KS", "AC AD 6S"]
    fixed_deal(monkeypatch, {2: deal})
    state, events = act(state, "5C")
    assert of_type(events, RoundEnded)[0].result.roles == (P, VP, N, VT, T)
    assert of_type(events, CardsGiven) == [CardsGiven(4, 0, 2, parse_cards(["AC", "AD"]), True),
                                           CardsGiven(3, 1, 1, parse_cards(["KS"]), True)]
    assert state.pending == ((0, 4, 2), (1, 3, 1)) and state.hands[2] == mask(deal[2])
    state, events = act(state, "give 3C 4C", "give 3D")
    assert events[-1] == ExchangeDone(4) and state.hands[2] == mask(deal[2])


def test_each_round_starts_in_the_normal_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # 001: "Chaque nouvelle donne commence dans l'ordre habituel"
    state = position("cardverse", ["5C", "", "9C"], went_out=[1], reversed=True, rounds=2)
    state, _ = act(state, "5C")
    assert state.round_no == 2 and not state.reversed


# --- legal_actions order (engine/legal.py) ------------------------------------------------------

ORDER = [
    # (preset, overrides, reversed, hand, top or None, expected list)
    ("classic", {}, False, "3C 5D 5H 2S", None, ["3C", "5D", "5H", "2S", "5D 5H"]),
    ("cardverse", {}, True, "3C 5D 5H 2S", None, ["2S", "5D", "5H", "3C", "5D 5H"]),
    ("classic", {"jokers": 1}, False, "5D 5H JR", None,
     ["5D", "5H", "JR", "5D 5H", "5D JR", "5H JR", "5D 5H JR"]),
    ("classic", {"jokers": 2}, False, "5D 5H JR JB", None,
     ["5D", "5H", "JR", "JB", "5D 5H", "5D JR", "5D JB", "5H JR", "5H JB",
      "5D 5H JR", "5D 5H JB", "5D JR JB", "5H JR JB", "5D 5H JR JB"]),
    ("full", {}, False, "5H 6H 7H 8H", None,
     ["5H", "6H", "7H", "8H", "5H-6H-7H", "6H-7H-8H", "5H-6H-7H-8H"]),
    ("classic", {}, False, "3C 3D 5D 5H 5S 2C 2S", None,
     ["3C", "3D", "5D", "5H", "5S", "2C", "2S", "3C 3D", "5D 5H", "5D 5S", "5H 5S", "2C 2S",
      "5D 5H 5S"]),
    ("cardverse", {}, True, "3C 3D 5D 5H 5S 2C 2S", None,
     ["2C", "2S", "5D", "5H", "5S", "3C", "3D", "2C 2S", "5D 5H", "5D 5S", "5H 5S", "3C 3D",
      "5D 5H 5S"]),
    ("classic", {}, False, "3C 3D 5D 5H 5S 2C 2S", "4C 4H", ["5D 5H", "5D 5S", "5H 5S", "2C 2S", "pass"]),
    ("cardverse", {}, True, "3C 3D 5D 5H 5S 2C 2S", "AC AH", ["5D 5H", "5D 5S", "5H 5S", "3C 3D", "pass"]),
    ("classic", {}, False, "3C 5D 5H 2S", "4H", ["5D", "5H", "2S", "pass"]),
    ("cardverse", {}, True, "3C 5D 5H 2S", "4H", ["3C", "pass"]),
    ("club", {}, False, "3C 5D 5H 2S", "5C", ["5D", "5H", "2S", "pass"]),
    ("full", {}, False, "5H 6H 7H 8H 9S TS JS", "4D-5D-6D", ["5H-6H-7H", "6H-7H-8H", "9S-TS-JS", "pass"]),
    ("full", {}, True, "5H 6H 7H 8H 9S TS JS", "8D-9D-TD", ["6H-7H-8H", "5H-6H-7H", "pass"]),
]


@pytest.mark.parametrize("preset, overrides, reversed_, hand, top, expected", ORDER)
def test_legal_actions_order(preset: str, overrides: dict[str, Any], reversed_: bool, hand: str,
                             top: str | None, expected: list[str]) -> None:
    trick = [(2, top)] if top else []
    state = position(preset, [hand, "QC", "QD"], trick=trick, reversed=reversed_, **overrides)
    assert texts(legal_actions(state)) == expected
    assert len(legal_actions(state)) == len(expected)
    assert all(parse_action(str(a)) is a for a in legal_actions(state))  # interned plays


def candidates(state: State) -> list[Any]:
    """Legal and illegal actions to ask about: the seat's own leads, others' cards, gifts."""
    own = lead_plays(state.hands[state.to_act], Rules.preset("full"), False)
    foreign = [play(t) for t in ("QC", "QD", "JR", "2H 2D", "3C-4C-5C", "KS-AS-2S")]
    return [*own, *foreign, PASS, Give.from_str("give 5D"), Give.from_str("give 5D 5H")]


@pytest.mark.parametrize("preset, overrides, reversed_, hand, top, expected", ORDER)
def test_membership_agrees_with_the_list(preset: str, overrides: dict[str, Any], reversed_: bool,
                                         hand: str, top: str | None, expected: list[str]) -> None:
    trick = [(2, top)] if top else []
    state = position(preset, [hand, "QC", "QD"], trick=trick, reversed=reversed_, **overrides)
    legal = legal_actions(state)
    listed = list(legal)
    for action in candidates(state):
        assert (action in legal) == (action in listed), str(action)


def test_membership_agrees_during_the_exchange(monkeypatch: pytest.MonkeyPatch) -> None:
    state = exchange_state(monkeypatch)
    listed = list(legal_actions(state))
    for text in ("give 3H 4H", "give 2C 2S", "give 3H", "give 3H 9S", "3H", "pass"):
        action = parse_action(text)
        assert (action in legal_actions(state)) == (action in listed), text


# --- turn errors -------------------------------------------------------------------------------


def test_not_your_turn() -> None:
    state = position("classic", ["5H", "6H", "7H"])
    assert_rejected(state, "6H", NotYourTurn, seat=1)
    assert_rejected(state, "6H", NotYourTurn, seat=7)
    check(state, play("5H"), seat=0)  # the seat to act may name itself


def test_a_seat_that_went_out_cannot_act() -> None:
    state = position("classic", ["5H", "", "7H", "8H"], went_out=[1])
    assert_rejected(state, "7H", AlreadyOut, seat=1)
