"""workers.rpc.serde: engine values <-> v1 messages, as to/from pairs.

Every view of real series survives view -> proto -> bytes -> proto -> view unchanged, and
so do requests, responses, budgets and rules; malformed input raises ValueError (which the
servicer turns into INVALID_ARGUMENT), never anything else.
"""

from __future__ import annotations

import math
from typing import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import (
    PASS, PRESETS, Give, Phase, Play, Rules, View, new_series, observe,
)
from president.ai.v1 import ai_pb2 as pb
from rule_strategies import preset_overrides
from rpchelpers import (
    PRESET_NAMES, acting_views, altered, sampled_states, set_field, table_rules,
)
from workers.ai import Weighed
from workers.ai.budget import Budget
from workers.rpc.serde import (
    action_from_proto, action_to_proto, budget_from_proto, budget_to_proto,
    candidates_from_proto, request_from_proto,
    request_to_proto, response_from_proto, response_to_proto, rules_from_proto, rules_to_proto,
    view_from_proto, view_to_proto,
)


def every_seat_views() -> list[View]:
    views = []
    for i, rules in enumerate(table_rules(rounds=3)):
        for state in sampled_states(rules, 100 + i, 0.06):
            views.extend(observe(state, seat) for seat in range(state.players))
    return views


VIEWS = every_seat_views()


def through_the_wire(view: View) -> View:
    data = view_to_proto(view).SerializeToString()
    return view_from_proto(pb.SeatView.FromString(data))


def test_the_sample_holds_every_kind_of_view() -> None:
    """The round-trip below is only worth something if the views hold all of this."""
    assert {v.rules.players for v in VIEWS} >= {3, 4, 5, 6, 8}
    assert {v.rules.with_options(players=4) for v in VIEWS} >= {
        PRESETS[name].with_options(players=4, rounds=3) for name in PRESET_NAMES}
    assert any(v.phase is Phase.EXCHANGE and v.pending for v in VIEWS)
    assert any(v.round_no >= 2 and any(e.cards is not None for e in v.exchanges) for v in VIEWS)
    assert any(any(e.cards is None for e in v.exchanges) for v in VIEWS)
    assert any(any(e.automatic for e in v.exchanges) for v in VIEWS)
    assert any(any(h.action is None for h in v.history) for v in VIEWS)  # hidden gifts
    assert any(any(isinstance(h.action, Give) for h in v.history) for v in VIEWS)
    assert any(any(x for x in v.result_exchanges) for v in VIEWS)
    assert any(any(e.cards is None for x in v.result_exchanges for e in x) for v in VIEWS)
    assert any(v.reversed for v in VIEWS)
    assert any(any(p.is_straight and p.jokers for _, p in v.trick) for v in VIEWS
               ) or any(any(isinstance(h.action, Play) and h.action.is_straight
                            and h.action.jokers for h in v.history) for v in VIEWS)
    assert any(any(p.is_straight for _, p in v.trick) for v in VIEWS)
    assert any(any(c.is_joker for c in v.hand) for v in VIEWS)
    assert any(any(c.is_joker for c in v.discard) for v in VIEWS)
    assert any(v.penalized for v in VIEWS) or any(r.penalized for v in VIEWS for r in v.results)
    assert any(v.passed for v in VIEWS) and any(v.went_out for v in VIEWS)
    assert any(v.legal_actions for v in VIEWS) and any(not v.legal_actions for v in VIEWS)
    assert len(VIEWS) > 1000


def test_every_view_of_real_series_round_trips() -> None:
    for view in VIEWS:
        back = through_the_wire(view)
        assert back == view, f"round {view.round_no}, seat {view.seat}, {view.rules}"


def test_acting_views_round_trip_with_their_legal_actions_in_order() -> None:
    for view in acting_views(6, seed=3):
        message = view_to_proto(view)
        assert list(message.legal_actions) == [str(a) for a in view.legal_actions]
        assert through_the_wire(view).legal_actions == view.legal_actions


def test_a_spectator_view_cannot_become_a_request() -> None:
    state = new_series(Rules.preset("classic"), 1)
    with pytest.raises(ValueError):
        view_to_proto(observe(state, None))


def test_every_legal_action_round_trips_as_a_response() -> None:
    seen_kinds = set()
    for view in acting_views(12, seed=5):
        for action in view.legal_actions:
            seen_kinds.add(type(action).__name__ if not isinstance(action, Play)
                           else action.kind.name)
            message = response_to_proto(action)
            assert message.action == str(action) == action_to_proto(action)
            assert response_from_proto(pb.DecideResponse.FromString(
                message.SerializeToString())) == action
            assert action_from_proto(str(action)) == action
    assert seen_kinds >= {"Give", "PASS", "GROUP", "JOKER", "STRAIGHT"}


budgets = st.one_of(
    st.none(),
    st.builds(Budget, simulations=st.integers(1, 2**32 - 1)),
    st.builds(Budget, milliseconds=st.floats(0.001, 1e7, allow_nan=False)),
    st.builds(Budget, simulations=st.integers(1, 2**32 - 1),
              milliseconds=st.floats(0.001, 1e7, allow_nan=False)),
)
REQUEST_VIEWS = acting_views(1, seed=7)


@settings(max_examples=60, deadline=None, database=None)
@given(view=st.sampled_from(REQUEST_VIEWS), level=st.text(max_size=20),
       seed=st.integers(0, 2**64 - 1), budget=budgets)
def test_requests_round_trip(view: View, level: str, seed: int, budget: Budget | None) -> None:
    message = request_to_proto(view, level, seed, budget)
    back = request_from_proto(pb.DecideRequest.FromString(message.SerializeToString()))
    assert back == (view, level, seed, budget)


@settings(max_examples=60, deadline=None, database=None)
@given(budget=budgets)
def test_budgets_round_trip(budget: Budget | None) -> None:
    message = budget_to_proto(budget)
    assert (message is None) == (budget is None)
    assert budget_from_proto(message) == budget


def test_a_nan_time_budget_is_refused_or_dropped() -> None:
    """A peer can send any double; a NaN time limit compares false with every clock
    reading, so a search given one would never stop."""
    try:
        budget = budget_from_proto(pb.Budget(milliseconds=math.nan))
    except ValueError:
        return
    assert budget is None or budget.milliseconds is None or math.isfinite(budget.milliseconds)


def test_an_empty_budget_message_means_the_level_default() -> None:
    assert budget_from_proto(pb.Budget()) is None
    assert budget_from_proto(None) is None
    request = request_to_proto(REQUEST_VIEWS[0], "hard", 1, None)
    assert not request.HasField("budget")
    assert request_from_proto(request)[3] is None


@st.composite
def rules_values(draw: st.DrawFn) -> Rules:
    """Any preset with any options (the suite's one strategy for rules: every option)."""
    name, overrides = draw(preset_overrides(max_rounds=100))
    return Rules.preset(name, **overrides)


@settings(max_examples=80, deadline=None, database=None)
@given(rules=rules_values())
def test_rules_round_trip(rules: Rules) -> None:
    message = rules_to_proto(rules)
    assert rules_from_proto(pb.Rules.FromString(message.SerializeToString())) == rules


def test_every_preset_round_trips() -> None:
    for rules in PRESETS.values():
        assert rules_from_proto(rules_to_proto(rules)) == rules


# --- malformed input --------------------------------------------------------------------


def base_request() -> pb.DecideRequest:
    """A real round-2 request of a 4-player classic series, with exchanges and history."""
    for state in sampled_states(Rules.preset("classic", players=4, rounds=2), 11, 0.3):
        view = observe(state, state.to_act)
        if view.round_no == 2 and view.trick and view.discard and view.exchanges and \
                view.results and view.roles:
            return request_to_proto(view, "easy", 0)
    raise AssertionError("no round-2 position with a trick and a discard")


BASE = base_request()


def mutated(change: Callable[[pb.DecideRequest], object]) -> pb.DecideRequest:
    return altered(BASE, change)


_set = set_field


def _exchange_cards(request: pb.DecideRequest) -> pb.ExchangeView:
    known = [e for e in request.view.exchanges if e.cards_known]
    assert known, "the base request has no exchange with cards"
    return known[0]


# name: (how the real request is spoiled, a word the error message must hold)
MALFORMED: dict[str, tuple[Callable[[pb.DecideRequest], object], str]] = {
    "unknown card in hand": (lambda r: r.view.hand.append("ZZ"), "ZZ"),
    "unknown card in discard": (lambda r: r.view.discard.append("ZZ"), "ZZ"),
    "unknown card in a legal action": (lambda r: r.view.legal_actions.append("ZZ"), "ZZ"),
    "unknown card in the trick": (lambda r: r.view.trick.add(seat=1, play="ZZ"), "ZZ"),
    "unknown card in the history":
        (lambda r: r.view.history.add(round=2, seat=1, action="ZZ"), "ZZ"),
    "unknown card in an exchange":
        (lambda r: _exchange_cards(r).cards.__setitem__(0, "ZZ"), "ZZ"),
    "unknown card in a result's exchange":
        (lambda r: r.view.results[0].exchanges.add(giver=0, receiver=1, count=1, cards=["ZZ"],
                                                   cards_known=True), "ZZ"),
    "phase 0 (unspecified)": (lambda r: _set(r.view, "phase", pb.PHASE_UNSPECIFIED), "phase"),
    "unknown phase value": (lambda r: _set(r.view, "phase", 7), "phase 7"),
    "role 0 (unspecified)":
        (lambda r: r.view.roles.__setitem__(0, pb.ROLE_UNSPECIFIED), "role 0"),
    "unknown role value": (lambda r: r.view.roles.__setitem__(1, 9), "role 9"),
    "unknown role in a result":
        (lambda r: r.view.results[0].roles.__setitem__(0, 42), "role 42"),
    "exchange lists fewer cards than its count":
        (lambda r: _set(_exchange_cards(r), "count", len(_exchange_cards(r).cards) + 1),
         "exchange"),
    "exchange lists more cards than its count":
        (lambda r: _exchange_cards(r).cards.append(
            next(c for c in ("3C", "3D", "3H", "3S", "4C", "4D")
                 if c not in _exchange_cards(r).cards)), "exchange"),
    "a pass in the trick": (lambda r: r.view.trick.add(seat=1, play="pass"), "pass"),
    "a gift in the trick": (lambda r: r.view.trick.add(seat=1, play="give 3C"), "give 3C"),
    "an empty play in the trick": (lambda r: r.view.trick.add(seat=1, play=""), "card"),
    "an unknown rules value":
        (lambda r: _set(r.view.rules, "first_lead", "whoever"), "whoever"),
    "rules with no players": (lambda r: _set(r.view.rules, "players", 0), "players"),
    "a negative time budget":
        (lambda r: r.budget.CopyFrom(pb.Budget(milliseconds=-1)), "milliseconds"),
    "no view at all": (lambda r: r.ClearField("view"), "view"),
}


def test_the_base_request_is_well_formed() -> None:
    view, level, seed, budget = request_from_proto(BASE)
    assert view.round_no == 2 and view.exchanges and view.trick and view.results
    assert any(e.cards is not None for e in view.exchanges)


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_requests_raise_value_error(name: str) -> None:
    change, word = MALFORMED[name]
    with pytest.raises(ValueError) as raised:
        request_from_proto(mutated(change))
    assert word in str(raised.value)


@pytest.mark.parametrize("text", ["ZZ", "", "7H 8H", "give", "give ZZ", "3C-4D-5C", "1H"])
def test_malformed_action_texts_raise_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        action_from_proto(text)
    with pytest.raises(ValueError):
        response_from_proto(pb.DecideResponse(action=text))


def test_an_answer_with_its_candidates_round_trips() -> None:
    weighed = (Weighed(Play.from_str("7H 7S"), 2.75, 40), Weighed(PASS, 1.5, 40))
    sent = pb.DecideResponse.FromString(response_to_proto(PASS, weighed).SerializeToString())
    assert response_from_proto(sent) == PASS and candidates_from_proto(sent) == weighed
    assert candidates_from_proto(response_to_proto(PASS)) == ()
    for points in (float("nan"), float("inf"), -0.5):
        bad = pb.DecideResponse(action="pass", candidates=[
            pb.Candidate(action="pass", expected_points=points, simulations=1)])
        with pytest.raises(ValueError):
            candidates_from_proto(bad)
