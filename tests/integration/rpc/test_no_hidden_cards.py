"""A DecideRequest never carries another seat's cards.

Requests are built the way the service builds them (``request_to_proto`` of
``observe(state, seat)``) from real series, for every seat of many positions. Every string
anywhere in the serialized request is read back as cards; a card that another seat holds
right now may only appear where this seat legitimately knows it: it gave that card in
this round's exchange. Earlier rounds were dealt differently, so their history and
results are checked for what stays private there: gifts between other seats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from engine import PRESETS, Card, Phase, State, cards_of, observe
from president.ai.v1 import ai_pb2 as pb
from rpchelpers import card_texts, sampled_states, string_fields, table_rules
from workers.rpc.serde import request_to_proto

# strings that are not card texts, and may not be
NOT_CARDS = ("level", "view.rules.first_lead", "view.rules.later_lead")
HISTORY = re.compile(r"^view\.history\[(\d+)\]\.action$")


def current_round_cards(request: pb.DecideRequest) -> list[tuple[str, Card]]:
    """(where, card) for every card text of the request about the current round: all of
    it but the results and the history of earlier rounds."""
    found = []
    current = request.view.round
    request = pb.DecideRequest.FromString(request.SerializeToString())  # what is sent
    for where, text in string_fields(request):
        cards = card_texts(text)
        if cards is None:
            assert where in NOT_CARDS, f"{where} holds {text!r}, which is not card text"
            continue
        if where.startswith("view.results["):
            continue
        history = HISTORY.match(where)
        if history and request.view.history[int(history.group(1))].round < current:
            continue
        found.extend((where, card) for card in cards)
    return found


def leaks(request: pb.DecideRequest, state: State, seat: int) -> list[str]:
    """What the request shows that ``seat`` may not know, given the real ``state``."""
    out = []
    gave = 0
    for exchange in state.exchanges:
        if exchange.giver == seat:
            gave |= exchange.mask
    for where, card in current_round_cards(request):
        owners = [s for s, hand in enumerate(state.hands) if s != seat and hand & card.bit]
        if owners and not gave & card.bit:
            out.append(f"{where}: {card} of seat {owners[0]}")
    view = request.view
    rounds = [*(r.exchanges for r in state.results), state.exchanges]
    receiver = {(n, e.giver): e.receiver for n, exchanges in enumerate(rounds, start=1)
                for e in exchanges if not e.automatic}
    for i, entry in enumerate(view.history):
        if seat not in (entry.seat, receiver.get((entry.round, entry.seat))) and (
                entry.action.startswith("give") or (entry.hidden and entry.action)):
            out.append(f"view.history[{i}]: seat {entry.seat}'s gift {entry.action!r}")
    for i, exchange in enumerate(view.exchanges):
        if seat not in (exchange.giver, exchange.receiver) and (
                exchange.cards_known or len(exchange.cards)):
            out.append(f"view.exchanges[{i}]: cards of {exchange.giver}->{exchange.receiver}")
    for r, result in enumerate(view.results):
        for i, exchange in enumerate(result.exchanges):
            if seat not in (exchange.giver, exchange.receiver) and (
                    exchange.cards_known or len(exchange.cards)):
                out.append(f"view.results[{r}].exchanges[{i}]: "
                           f"{exchange.giver}->{exchange.receiver}")
    return out


@dataclass
class Case:
    state: State
    seat: int
    request: pb.DecideRequest


def cases() -> list[Case]:
    out = []
    for i, rules in enumerate(table_rules(rounds=3)):
        for state in sampled_states(rules, 500 + i, 0.03):
            for seat in range(state.players):
                view = observe(state, seat)
                out.append(Case(state, seat, request_to_proto(view, "hard", seat)))
    return out


CASES = cases()


def test_the_positions_cover_what_can_leak() -> None:
    assert len(CASES) > 500
    assert {c.state.rules.players for c in CASES} >= {3, 4, 5, 6, 8}
    assert any(c.state.phase is Phase.EXCHANGE for c in CASES)
    assert sum(c.state.round_no >= 2 for c in CASES) > 100
    assert any(c.state.reversed for c in CASES)
    assert any(c.request.view.legal_actions for c in CASES)
    # a seat whose gift is still in the receiver's hand: the allowed exception happens
    assert any(any(e.giver == c.seat and c.state.hands[e.receiver] & e.mask
                   for e in c.state.exchanges) for c in CASES)
    # exchanges between other seats exist, with their cards still in hand
    assert any(any(c.seat not in (e.giver, e.receiver) and c.state.hands[e.receiver] & e.mask
                   for e in c.state.exchanges) for c in CASES)


def test_the_walk_finds_the_seats_own_cards_and_the_table() -> None:
    for case in CASES[::7]:
        where = {w.split("[")[0] for w, _ in current_round_cards(case.request)}
        found = {card for _, card in current_round_cards(case.request)}
        assert set(observe(case.state, case.seat).hand) <= found
        if case.request.view.discard:
            assert "view.discard" in where
        if case.request.view.trick:
            assert "view.trick" in where


def test_no_request_holds_another_seats_cards() -> None:
    for case in CASES:
        found = leaks(case.request, case.state, case.seat)
        assert found == [], (f"round {case.state.round_no}, {case.state.phase.value}, "
                             f"seat {case.seat}, {case.state.rules}: {found[:5]}")


# --- the check itself catches a leak ------------------------------------------------------


def leaky_case() -> Case:
    """A round-2+ request where other seats hold cards and an exchange between two other
    seats has its cards still in the receiver's hand."""
    for case in CASES:
        state, seat = case.state, case.seat
        if state.round_no >= 2 and case.request.view.history and any(
                seat not in (e.giver, e.receiver) and not e.automatic
                and state.hands[e.receiver] & e.mask == e.mask for e in state.exchanges):
            return case
    raise AssertionError("no position with a hidden gift still in hand")


LEAKY = leaky_case()


def another_seats_card(case: Case) -> str:
    other = next(s for s, hand in enumerate(case.state.hands) if s != case.seat and hand)
    low = case.state.hands[other] & -case.state.hands[other]
    return next(str(c) for c in observe(case.state, other).hand if c.bit == low)


def hidden_gift(case: Case):  # type: ignore[no-untyped-def]
    return next(e for e in case.state.exchanges
                if case.seat not in (e.giver, e.receiver) and not e.automatic)


def doctored(change) -> list[str]:  # type: ignore[no-untyped-def]
    request = pb.DecideRequest()
    request.CopyFrom(LEAKY.request)
    change(request)
    return leaks(request, LEAKY.state, LEAKY.seat)


def test_the_check_catches_a_card_added_to_the_discard() -> None:
    card = another_seats_card(LEAKY)
    assert leaks(LEAKY.request, LEAKY.state, LEAKY.seat) == []
    found = doctored(lambda r: r.view.discard.append(card))
    assert found and card in found[0] and found[0].startswith("view.discard")


def test_the_check_catches_other_leaks() -> None:
    card = another_seats_card(LEAKY)
    gift = hidden_gift(LEAKY)
    gift_cards = [str(c) for c in cards_of(gift.mask)]
    hidden = next(i for i, h in enumerate(LEAKY.request.view.history)
                  if h.hidden and h.seat == gift.giver and h.round == LEAKY.state.round_no)

    def reveal_exchange(r: pb.DecideRequest) -> None:
        e = next(e for e in r.view.exchanges if e.giver == gift.giver and not e.automatic)
        e.cards.extend(gift_cards)
        e.cards_known = True

    def reveal_history(r: pb.DecideRequest) -> None:
        r.view.history[hidden].action = "give " + " ".join(gift_cards)
        r.view.history[hidden].hidden = False

    def reveal_past_exchange(r: pb.DecideRequest) -> None:
        result = r.view.results.add(round=1) if not r.view.results else r.view.results[0]
        result.exchanges.add(giver=gift.giver, receiver=gift.receiver, count=len(gift_cards),
                             cards=gift_cards, cards_known=True)

    assert doctored(lambda r: r.view.hand.append(card))
    assert doctored(lambda r: r.view.legal_actions.append(card))
    assert doctored(lambda r: r.view.trick.add(seat=LEAKY.seat, play=card))
    assert doctored(lambda r: r.view.history.add(round=LEAKY.state.round_no,
                                                 seat=LEAKY.seat, action=card))
    assert doctored(reveal_exchange)
    assert doctored(reveal_history)
    assert doctored(reveal_past_exchange)


def test_a_string_that_is_not_card_text_is_not_skipped() -> None:
    """A card in an unexpected format or field fails the walk instead of being ignored."""
    request = pb.DecideRequest()
    request.CopyFrom(LEAKY.request)
    request.view.discard.append("7H and more")
    with pytest.raises(AssertionError, match="not card text"):
        current_round_cards(request)


def test_rules_of_every_preset_are_covered() -> None:
    presets = {c.state.rules.with_options(players=4, rounds=1) for c in CASES}
    assert presets >= {r.with_options(players=4, rounds=1) for r in PRESETS.values()}
