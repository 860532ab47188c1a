"""Conversions between engine values and the v1 protobuf messages, as to/from pairs.

The only module that knows both sides: the engine never imports protobuf, and the
servicer and the client only call these functions. ``*_from_proto`` raise
``ValueError`` (engine errors included) on malformed input; the servicer turns that
into INVALID_ARGUMENT.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Sequence

from engine import (
    Card, ExchangeView, HistoryEntry, Phase, Play, Role, RoundResult, Rules, View,
    parse_action, parse_cards,
)
from engine.plays import Action
from president.ai.v1 import ai_pb2 as pb
from workers.ai.budget import Budget
from workers.ai.search import Weighed

_PHASES = {Phase.EXCHANGE: pb.PHASE_EXCHANGE, Phase.PLAY: pb.PHASE_PLAY, Phase.OVER: pb.PHASE_OVER}
_PHASES_BACK = {v: k for k, v in _PHASES.items()}
_ROLES = {Role.PRESIDENT: pb.ROLE_PRESIDENT, Role.VICE_PRESIDENT: pb.ROLE_VICE_PRESIDENT,
          Role.NEUTRE: pb.ROLE_NEUTRE, Role.VICE_TROU: pb.ROLE_VICE_TROU, Role.TROU: pb.ROLE_TROU}
_ROLES_BACK = {v: k for k, v in _ROLES.items()}


# --- small values ---------------------------------------------------------------------


def cards_to_proto(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def cards_from_proto(texts: Sequence[str]) -> tuple[Card, ...]:
    return parse_cards(texts)


def action_to_proto(action: Action) -> str:
    return str(action)


def action_from_proto(text: str) -> Action:
    return parse_action(text)


def role_from_proto(value: int) -> Role:
    try:
        return _ROLES_BACK[value]
    except KeyError:
        raise ValueError(f"unknown role {value}") from None


def budget_to_proto(budget: Budget | None) -> pb.Budget | None:
    if budget is None:
        return None
    return pb.Budget(simulations=budget.simulations or 0, milliseconds=budget.milliseconds or 0.0)


def budget_from_proto(message: pb.Budget | None) -> Budget | None:
    if message is None or (not message.simulations and not message.milliseconds):
        return None
    if not 0 <= message.milliseconds < math.inf:  # NaN fails too
        raise ValueError("budget.milliseconds must be a finite number, not negative")
    return Budget(simulations=message.simulations or None,
                  milliseconds=message.milliseconds or None)


# --- rules ----------------------------------------------------------------------------


def rules_to_proto(rules: Rules) -> pb.Rules:
    return pb.Rules(**rules.to_dict())


def rules_from_proto(message: pb.Rules) -> Rules:
    return _rules_from_bytes(message.SerializeToString(deterministic=True))


@lru_cache(maxsize=256)  # a worker sees a handful of rulesets; Rules are immutable
def _rules_from_bytes(data: bytes) -> Rules:
    message = pb.Rules.FromString(data)
    return Rules.from_dict({name: getattr(message, name) for name in _RULE_NAMES})


_RULE_NAMES = tuple(Rules().to_dict())


# --- exchanges and results ------------------------------------------------------------


def exchange_to_proto(e: ExchangeView) -> pb.ExchangeView:
    return pb.ExchangeView(giver=e.giver, receiver=e.receiver, count=e.count,
                           cards=cards_to_proto(e.cards or ()), cards_known=e.cards is not None,
                           automatic=e.automatic)


def exchange_from_proto(m: pb.ExchangeView) -> ExchangeView:
    cards = cards_from_proto(m.cards) if m.cards_known else None
    if cards is not None and len(cards) != m.count:
        raise ValueError(f"an exchange of {m.count} card(s) lists {len(cards)}")
    return ExchangeView(m.giver, m.receiver, m.count, cards, m.automatic)


def result_to_proto(r: RoundResult, exchanges: tuple[ExchangeView, ...]) -> pb.RoundResult:
    """A finished round as a view has it: its exchanges as the viewer saw them."""
    return pb.RoundResult(
        round=r.round_no, went_out=r.went_out, ranking=r.ranking,
        roles=[_ROLES[x] for x in r.roles], points=r.points, penalized=r.penalized,
        exchanges=[exchange_to_proto(e) for e in exchanges])


def result_from_proto(m: pb.RoundResult) -> tuple[RoundResult, tuple[ExchangeView, ...]]:
    return (RoundResult(m.round, tuple(m.went_out), tuple(m.ranking),
                        tuple(role_from_proto(x) for x in m.roles), tuple(m.points),
                        tuple(m.penalized), ()),
            tuple(exchange_from_proto(e) for e in m.exchanges))


def history_to_proto(h: HistoryEntry) -> pb.HistoryEntry:
    return pb.HistoryEntry(round=h.round_no, seat=h.seat, hidden=h.action is None,
                           action="" if h.action is None else action_to_proto(h.action))


def history_from_proto(entries: Sequence[pb.HistoryEntry]) -> tuple[HistoryEntry, ...]:
    """A whole history at once, in one comprehension: a view carries a series' every
    action, and this loop is a good part of a worker's time per request."""
    parse, entry = action_from_proto, HistoryEntry
    return tuple([entry(h.round, h.seat, None if h.hidden else parse(h.action))
                  for h in entries])


# --- the view -------------------------------------------------------------------------


def view_to_proto(view: View) -> pb.SeatView:
    if view.seat is None:
        raise ValueError("a spectator view cannot ask for a decision")
    return pb.SeatView(
        seat=view.seat, rules=rules_to_proto(view.rules), round=view.round_no,
        phase=_PHASES[view.phase], to_act=view.to_act, hand=cards_to_proto(view.hand),
        hand_sizes=view.hand_sizes,
        trick=[pb.TrickPlay(seat=s, play=str(p)) for s, p in view.trick],
        discard=cards_to_proto(view.discard), reversed=view.reversed, passed=view.passed,
        went_out=view.went_out, penalized=view.penalized,
        roles=[_ROLES[r] for r in view.roles or ()], scores=view.scores, leader=view.leader,
        pending=[pb.PendingGift(giver=g, receiver=r, count=c) for g, r, c in view.pending],
        exchanges=[exchange_to_proto(e) for e in view.exchanges],
        history=[history_to_proto(h) for h in view.history],
        results=[result_to_proto(r, x) for r, x in zip(view.results, view.result_exchanges)],
        legal_actions=[action_to_proto(a) for a in view.legal_actions])


def view_from_proto(m: pb.SeatView) -> View:
    """Parse a view; its shape is checked here, its consistency by ``validate.check_view``."""
    if m.phase not in _PHASES_BACK:
        raise ValueError(f"unknown phase {m.phase}")
    trick = []
    for t in m.trick:
        play = action_from_proto(t.play)
        if not isinstance(play, Play) or not play:
            raise ValueError(f"{t.play!r} is not a play that can be on the table")
        trick.append((t.seat, play))
    results = [result_from_proto(r) for r in m.results]
    return View(
        seat=m.seat, rules=rules_from_proto(m.rules), round_no=m.round,
        phase=_PHASES_BACK[m.phase], to_act=m.to_act, hand=cards_from_proto(m.hand),
        hand_sizes=tuple(m.hand_sizes), trick=tuple(trick), discard=cards_from_proto(m.discard),
        reversed=m.reversed, passed=tuple(m.passed), went_out=tuple(m.went_out),
        penalized=tuple(m.penalized),
        roles=tuple(role_from_proto(r) for r in m.roles) or None, scores=tuple(m.scores),
        leader=m.leader, pending=tuple((p.giver, p.receiver, p.count) for p in m.pending),
        exchanges=tuple(exchange_from_proto(e) for e in m.exchanges),
        history=history_from_proto(m.history),
        results=tuple(r for r, _ in results),
        result_exchanges=tuple(x for _, x in results),
        legal_actions=tuple(action_from_proto(a) for a in m.legal_actions), outcome=None)


# --- the call -------------------------------------------------------------------------


def request_to_proto(view: View, level: str, seed: int, budget: Budget | None = None,
                     explain: bool = False, also: Action | None = None) -> pb.DecideRequest:
    return pb.DecideRequest(view=view_to_proto(view), level=level, seed=seed,
                            budget=budget_to_proto(budget), explain=explain,
                            weigh_also=also_to_proto(also))


def request_from_proto(m: pb.DecideRequest) -> tuple[View, str, int, Budget | None]:
    if not m.HasField("view"):
        raise ValueError("the request has no view")
    budget = budget_from_proto(m.budget) if m.HasField("budget") else None
    return view_from_proto(m.view), m.level, m.seed, budget


def also_to_proto(also: Action | None) -> str:
    return "" if also is None else action_to_proto(also)


def also_from_proto(m: pb.DecideRequest) -> Action | None:
    """The action a request asks to be weighed too, if any (legal: the caller checks)."""
    return action_from_proto(m.weigh_also) if m.weigh_also else None


def response_to_proto(action: Action, weighed: Sequence[Weighed] = ()) -> pb.DecideResponse:
    return pb.DecideResponse(action=action_to_proto(action), candidates=[
        pb.Candidate(action=action_to_proto(w.action), expected_points=w.expected_points,
                     simulations=w.simulations) for w in weighed])


def response_from_proto(m: pb.DecideResponse) -> Action:
    return action_from_proto(m.action)


def candidates_from_proto(m: pb.DecideResponse) -> tuple[Weighed, ...]:
    """The candidates an answer reports; ValueError for one that cannot be (its points
    not a finite number from 0, its action unreadable)."""
    weighed = []
    for c in m.candidates:
        if not 0 <= c.expected_points < float("inf"):
            raise ValueError(f"a candidate's expected points are {c.expected_points}")
        weighed.append(Weighed(action_from_proto(c.action), c.expected_points, c.simulations))
    return tuple(weighed)
