"""Hidden information lives here, and only here.

``observe(state, seat)`` is what one seat may know: its own hand, everyone's
hand size, the public table, discard and history, the order in force, passes,
roles and scores, the exchanges it took part in, and its legal actions.
``observe(state, None)`` is the spectator's view: no hand at all. The API and
the AI workers only ever receive views; ``redact`` filters events the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from engine.cards import Card, cards_of
from engine.events import CardsGiven, Event, RoundEnded
from engine.game import generate
from engine.legal import lock_of
from engine.outcome import Exchange, Outcome, Role, RoundResult
from engine.plays import Action, Give, Play
from engine.rules import Rules
from engine.state import Phase, State


@dataclass(frozen=True, slots=True)
class ExchangeView:
    giver: int
    receiver: int
    count: int
    cards: tuple[Card, ...] | None  # None unless the viewer gave or received them
    automatic: bool


class HistoryEntry(NamedTuple):
    """One action of the series as a viewer sees it (a NamedTuple: views hold many)."""

    round_no: int
    seat: int
    action: Action | None  # None: a gift whose cards this viewer may not see


@dataclass(frozen=True, slots=True)
class View:
    seat: int | None  # None for a spectator
    rules: Rules
    round_no: int
    phase: Phase
    to_act: int  # -1 once the series is over
    hand: tuple[Card, ...]  # empty for a spectator
    hand_sizes: tuple[int, ...]
    trick: tuple[tuple[int, Play], ...]  # the current trick, oldest play first
    discard: tuple[Card, ...]  # cards of the tricks already won this round
    reversed: bool  # revolution order in force
    passed: tuple[int, ...]  # seats that passed in this trick
    went_out: tuple[int, ...]  # seats in the order they went out this round
    penalized: tuple[int, ...]  # seats that went out on the strongest rank (no_finish_on_two)
    roles: tuple[Role, ...] | None  # from the previous round (once over: the last one's)
    scores: tuple[int, ...]
    leader: int  # who leads (led) this round's first trick
    pending: tuple[tuple[int, int, int], ...]  # exchange gifts owed: (giver, receiver, count)
    exchanges: tuple[ExchangeView, ...]  # this round's exchanges
    history: tuple[HistoryEntry, ...]  # the series' actions, oldest first
    results: tuple[RoundResult, ...]  # finished rounds (their exchanges: below)
    result_exchanges: tuple[tuple[ExchangeView, ...], ...]  # each finished round's
    legal_actions: tuple[Action, ...]  # empty unless this seat is to act
    outcome: Outcome | None

    @property
    def top(self) -> Play | None:
        return self.trick[-1][1] if self.trick else None

    @property
    def lock(self) -> int:
        """The suits the trick is locked to (bit per suit; the suit lock), or 0."""
        return lock_of(self.trick) if self.rules.suit_lock else 0

    @property
    def players(self) -> int:
        return len(self.hand_sizes)

    @property
    def trick_leader(self) -> int:
        """Who leads the trick under way: its first play's seat, or the seat to lead it
        (in the exchange, and once the series is over: the round's first leader)."""
        if self.trick:
            return self.trick[0][0]
        return self.to_act if self.phase is Phase.PLAY else self.leader

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.to_act


def _sees(seat: int | None, giver: int, receiver: int) -> bool:
    return seat is not None and seat in (giver, receiver)


def observe(state: State, seat: int | None, *, history: bool = True) -> View:
    """What ``seat`` (None: a spectator) may see. ``history=False`` leaves the series'
    action history out (an empty tuple) for callers that do not show it: it grows with
    the series and is most of the cost of a view late in a long one."""
    if seat is not None and not 0 <= seat < state.players:
        raise ValueError(f"there is no seat {seat} at this table")
    entries = _history(state, seat) if history else ()
    mine = seat is not None and seat == state.to_act and state.phase is not Phase.OVER
    over = state.phase is Phase.OVER
    return View(
        seat=seat, rules=state.rules, round_no=state.round_no, phase=state.phase,
        to_act=state.to_act, hand=cards_of(state.hands[seat]) if seat is not None else (),
        hand_sizes=tuple(h.bit_count() for h in state.hands), trick=state.trick,
        discard=cards_of(state.discard), reversed=state.reversed,
        passed=tuple(s for s in range(state.players) if state.passed >> s & 1),
        went_out=state.went_out,
        penalized=tuple(s for s in range(state.players) if state.penalized >> s & 1),
        roles=state.results[-1].roles if over and state.results else state.roles,
        scores=state.scores, leader=state.leader, pending=state.pending,
        exchanges=_exchanges(state.exchanges, seat), history=entries,
        results=tuple(replace(r, exchanges=()) for r in state.results),
        result_exchanges=tuple(_exchanges(r.exchanges, seat) for r in state.results),
        legal_actions=tuple(generate(state)) if mine else (), outcome=state.outcome)


def _exchanges(exchanges: tuple[Exchange, ...], seat: int | None) -> tuple[ExchangeView, ...]:
    """Every exchange, its cards for the two seats it was between only."""
    return tuple(ExchangeView(e.giver, e.receiver, e.mask.bit_count(),
                              cards_of(e.mask) if _sees(seat, e.giver, e.receiver) else None,
                              e.automatic) for e in exchanges)


def _history(state: State, seat: int | None) -> tuple[HistoryEntry, ...]:
    """The series' actions; a gift's cards only for its giver and its receiver."""
    rounds = [*(r.exchanges for r in state.results), state.exchanges]
    receivers = {(n, e.giver): e.receiver for n, exchanges in enumerate(rounds, start=1)
                 for e in exchanges if not e.automatic}
    return tuple(
        HistoryEntry(e.round_no, e.seat,
                     None if isinstance(e.action, Give)
                     and seat not in (e.seat, receivers.get((e.round_no, e.seat)))
                     else e.action)
        for e in state.log_entries())


def _redact_result(result: RoundResult, seat: int | None) -> RoundResult:
    kept = tuple(e for e in result.exchanges if _sees(seat, e.giver, e.receiver))
    return result if len(kept) == len(result.exchanges) else replace(result, exchanges=kept)


def redact(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` (None: a spectator) may see it."""
    if isinstance(event, CardsGiven) and not _sees(seat, event.giver, event.receiver):
        return replace(event, cards=None)
    if isinstance(event, RoundEnded):
        return RoundEnded(_redact_result(event.result, seat))
    return event
