"""A series as a state machine: deal → exchange → tricks → going out → next round → end.

``new_series(rules, seed)`` deals round 1; ``apply(state, action)`` checks the
action and returns the next state and the events it caused; the state is
always at a decision (a gift to choose or a play to make) until the series is
over. Everything is deterministic: the seed fixes every deal, so rules + seed +
the action log rebuild a state exactly (``replay``).
"""

from __future__ import annotations

import random
from typing import Iterable, Iterator, Sequence

from engine import legal
from engine.cards import cards_of, highest_cards
from engine.errors import (
    AlreadyOut, AlreadyPassed, BadExchange, CardNotInHand, GameOver, NotYourTurn, WrongPhase,
)
from engine.events import (
    CardsGiven, Event, ExchangeDone, Passed, Played, Revolution, RoundEnded, RoundStarted,
    SeriesEnded, Skipped, TrickWon, WentOut,
)
from engine.outcome import Exchange, Role, RoundResult, exchange_pairs, roles_by_place
from engine.plays import PASS, Action, Give, Play, PlayKind
from engine.rules import MOST_ROUNDS, MOST_SEATS, FirstLead, LaterLead, Rules
from engine.state import LogEntry, Phase, RoundLog, State, copied

THREE_OF_CLUBS = 1  # bit 0: rank 3, suit clubs
THREE_OF_DIAMONDS = 1 << 1  # bit 1: rank 3, suit diamonds
# An Enum member read through its class costs about a microsecond on Python 3.11: the
# hot paths read these names instead.
_GROUP, _STRAIGHT, _JOKER = PlayKind.GROUP, PlayKind.STRAIGHT, PlayKind.JOKER
_PLAY, _EXCHANGE, _OVER = Phase.PLAY, Phase.EXCHANGE, Phase.OVER

_TWO, _THREE, _EIGHT = 12, 0, 5


def deal(rules: Rules, seed: int, round_no: int, start: int = 0) -> tuple[int, ...]:
    """Shuffle with a generator seeded by (seed, round) and deal one card at a time from
    seat ``start`` until the deck is empty; the first seats dealt may hold one card more."""
    rng = random.Random(f"president:{seed}:{round_no}")
    deck = list(range(52 + rules.jokers))
    rng.shuffle(deck)
    n = rules.players
    hands = [0] * n
    for i, card in enumerate(deck):
        hands[(start + i) % n] |= 1 << card
    return tuple(hands)


def round_deal(state: State, round_no: int) -> tuple[int, ...]:
    """The hands dealt in a round of ``state``'s series (before any exchange)."""
    roles = state.results[round_no - 2].roles if round_no > 1 else None
    return deal(state.rules, state.seed, round_no, _deal_start(state.rules, round_no, roles))


def _deal_start(rules: Rules, round_no: int, roles: tuple[Role, ...] | None) -> int:
    if roles is None or not rules.deal_from_president or _resets(rules, round_no):
        return 0
    return roles.index(Role.PRESIDENT)


def _resets(rules: Rules, round_no: int) -> bool:
    """Is this round played as round 1, its roles reset (``reset_every``)?"""
    return round_no == 1 or (rules.reset_every > 0 and (round_no - 1) % rules.reset_every == 0)


def new_series(rules: Rules, seed: int) -> State:
    state, _ = new_series_with_events(rules, seed)
    return state


def new_series_with_events(rules: Rules, seed: int) -> tuple[State, list[Event]]:
    n = rules.players
    blank = State(rules=rules, seed=seed, round_no=0, phase=_PLAY, hands=(0,) * n,
                  to_act=-1, trick=(), passed=0, discard=0, reversed=False, went_out=(),
                  penalized=0, roles=None, scores=(0,) * n, pending=(), exchanges=(),
                  results=(), log=(), past_logs=(), leader=-1)
    events: list[Event] = []
    return _start_round(blank, 1, None, events), events


def round_from_hands(rules: Rules, hands: Sequence[int], seed: int = 0) -> State:
    """Round 1 of a series played from given hands instead of a deal (a game log's, a
    game server's): the play phase at its first lead, as ``rules.first_lead`` says."""
    if len(hands) != rules.players:
        raise ValueError(f"{len(hands)} hands for {rules.players} players")
    try:
        leader = _round_leader(rules, hands, None)
    except StopIteration:
        raise ValueError("no hand holds the card that leads the first round") from None
    return new_series(rules, seed)._replace(hands=tuple(hands), to_act=leader, leader=leader)


# --- whose turn, what is legal -----------------------------------------------------------


class LegalActions:
    """The legal actions of the seat to act. ``action in legal`` checks that one action
    without generating the rest; iterating generates them in the documented order."""

    __slots__ = ("state", "_list")

    def __init__(self, state: State) -> None:
        self.state = state
        self._list: list[Action] | None = None

    def as_list(self) -> list[Action]:
        if self._list is None:
            self._list = generate(self.state)
        return self._list

    def __iter__(self) -> Iterator[Action]:
        return iter(self.as_list())

    def __len__(self) -> int:
        return len(self.as_list())

    def __bool__(self) -> bool:
        return self.state.phase is not _OVER

    def __contains__(self, action: object) -> bool:
        return isinstance(action, (Play, Give)) and is_legal(self.state, action)

    def __repr__(self) -> str:
        return f"LegalActions({', '.join(map(str, self.as_list()))})"


def legal_actions(state: State) -> LegalActions:
    return LegalActions(state)


def generate(state: State) -> list[Action]:
    if state.phase is _PLAY:
        hand = state.hands[state.to_act]
        trick = state.trick
        if trick:
            rules = state.rules
            lock = legal.lock_of(trick) if rules.suit_lock else 0
            return legal.follow_plays(hand, trick[-1][1], rules, state.reversed, lock)  # type: ignore[return-value]
        leads: list[Action] = legal.lead_plays(hand, state.rules, state.reversed)  # type: ignore[assignment]
        if state.rules.lead_pass:
            leads.append(PASS)
        return leads
    if state.phase is _EXCHANGE:
        return legal.gives(state.hands[state.to_act], state.pending[0][2])  # type: ignore[return-value]
    return []


def is_legal(state: State, action: Action) -> bool:
    try:
        check(state, action)
    except ValueError:
        return False
    return True


def check(state: State, action: Action, seat: int | None = None) -> None:
    """Raise the specific error if ``action`` (by ``seat``, default the seat to act) is
    not legal now; return quietly if it is."""
    if state.phase is _OVER:
        raise GameOver("the series is over")
    if seat is not None and seat != state.to_act:
        _raise_not_your_turn(state, seat)
    if state.phase is _EXCHANGE:
        if not isinstance(action, Give):
            raise WrongPhase(f"the exchange comes first: seat {state.to_act} gives back "
                             f"{state.pending[0][2]} card(s) ('give …')")
        _check_give(state, action)
        return
    if not isinstance(action, Play):
        raise WrongPhase("no exchange now: play cards or pass")
    rules = state.rules
    lock = legal.lock_of(state.trick) if rules.suit_lock else 0
    legal.check_play(state.hands[state.to_act], state.top, action, rules, state.reversed, lock)


def _raise_not_your_turn(state: State, seat: int) -> None:
    if not 0 <= seat < state.players:
        raise NotYourTurn(f"there is no seat {seat} at this table")
    if state.phase is _PLAY and not state.hands[seat]:
        raise AlreadyOut(f"seat {seat} has gone out of this round")
    if state.phase is _PLAY and state.passed >> seat & 1:
        raise AlreadyPassed(f"seat {seat} passed: passing is final until the trick ends")
    raise NotYourTurn(f"it is seat {state.to_act}'s turn, not seat {seat}'s")


def _check_give(state: State, give: Give) -> None:
    count = state.pending[0][2]
    if give.size != count:
        raise BadExchange(f"give back exactly {count} card(s), not {give.size}")
    if give.mask & ~state.hands[state.to_act]:
        raise CardNotInHand(f"{give} names cards that are not in your hand")


# --- applying an action ------------------------------------------------------------------


def apply(state: State, action: Action, seat: int | None = None) -> tuple[State, list[Event]]:
    """Check ``action`` for ``seat`` (default: the seat to act) and apply it. Returns the
    new state and what happened; on an illegal action raises and changes nothing."""
    check(state, action, seat)
    events: list[Event] = []
    return apply_unchecked(state, action, events), events


def apply_unchecked(state: State, action: Action, events: list[Event] | None = None,
                    owned: bool = False) -> State:
    """Apply an action known to be legal (e.g. taken from ``legal_actions``). Events are
    appended to ``events``; with None (simulations) the frequent ones are not even built.

    ``owned``: ``state`` is a simulation's own, which nothing else holds (a copy it made
    for itself: this function without ``owned``, or ``_replace``): its fields are changed
    in place where they can be, rather than copied to a new state. Use the state
    returned, ``state`` or another."""
    if not owned:
        state = copied(state)  # (the functions below change the state they are given)
    seat = state.to_act
    if action is PASS:  # half the actions; plays are interned, so PASS is the only pass
        return _pass(state, seat, state.log + (_PASS_ENTRIES[state.round_no][seat],), events)
    log = state.log + (tuple.__new__(LogEntry, (state.round_no, seat, action)),)
    if type(action) is Play:
        return _play(state, seat, action, log, events)
    assert isinstance(action, Give)
    return _give(state, seat, action, log, events)


# _PASS_ENTRIES[round][seat]: every pass's log entry, shared.
_PASS_ENTRIES = [[tuple.__new__(LogEntry, (r, seat, PASS)) for seat in range(MOST_SEATS)]
                 for r in range(MOST_ROUNDS + 1)]


def replay(rules: Rules, seed: int, actions: Iterable[Action]) -> State:
    """Rebuild a series from its rules, seed and action log; illegal actions raise."""
    state = new_series(rules, seed)
    for action in actions:
        state, _ = apply(state, action)
    return state


# _AFTER[n][seat]: the seats after ``seat`` around a table of n, ``seat`` itself last
_AFTER = [[tuple((seat + step) % n for step in range(1, n + 1)) for seat in range(n)]
          for n in range(9)]


def _next_seat(hands: Sequence[int], passed: int, after: int) -> int:
    """The next seat after ``after`` still in the round that has not passed, or -1."""
    for seat in _AFTER[len(hands)][after]:
        if hands[seat] and not passed >> seat & 1:
            return seat
    return -1


def _closes(rules: Rules, play: Play, reversed_: bool) -> bool:
    """Closing plays end the trick at once (with any play on the single joker: only the
    3 of spades goes there, where it may). Judged in the order in force when played."""
    if play.kind is _GROUP:
        if rules.twos_close and play.rank == (_THREE if reversed_ else _TWO):
            return True
        return rules.eights_close and play.rank == _EIGHT
    if play.kind is _STRAIGHT and rules.eights_close:
        return play.rank <= _EIGHT <= play.high
    return False


def _strongest(play: Play, reversed_: bool) -> bool:
    """For no_finish_on_two: does the play hold the strongest rank of the order in force
    (a 2, a 3 during a revolution), naturally or through a joker standing in?"""
    if play.kind is _JOKER:
        return True
    strongest = _THREE if reversed_ else _TWO
    if play.kind is _GROUP:
        return play.rank == strongest
    return play.rank <= strongest <= play.high


def _play(state: State, seat: int, play: Play, log: RoundLog, events: list[Event] | None) -> State:
    rules = state.rules
    hands = list(state.hands)
    hands[seat] ^= play.mask
    if events is not None:
        events.append(Played(seat, play))
    trick = state.trick
    previous = trick[-1][1] if trick else None
    trick += ((seat, play),)
    reversed_ = state.reversed
    closes = (previous is not None and previous.kind is _JOKER) or (
        (rules.twos_close or rules.eights_close) and _closes(rules, play, reversed_))
    if rules.revolution and ((play.kind is _GROUP and play.size >= 4) or (
            rules.straight_revolution and play.kind is _STRAIGHT and play.size >= 5)):
        reversed_ = not reversed_
        if events is not None:
            events.append(Revolution(reversed_))
    went_out, penalized = state.went_out, state.penalized
    if not hands[seat]:
        penal = rules.no_finish_on_two and _strongest(play, state.reversed)
        went_out += (seat,)
        penalized |= penal << seat
        if events is not None:
            events.append(WentOut(seat, len(went_out), penal))
        if len(went_out) == rules.players - 1:
            ended = state._replace(hands=tuple(hands), trick=trick, reversed=reversed_,
                                   went_out=went_out, penalized=penalized, log=log)
            return _end_round(ended, events)
    passed = state.passed
    if not closes and rules.skip_on_match and previous is not None \
            and previous.kind is _GROUP and play.rank == previous.rank:
        victim = _next_seat(hands, passed | 1 << seat, seat)
        if victim >= 0:
            passed |= 1 << victim
            if events is not None:
                events.append(Skipped(victim))
    nxt = -1 if closes else _next_seat(hands, passed | 1 << seat, seat)
    if nxt < 0 and rules.play_on_own and not closes and hands[seat]:
        nxt = seat  # everyone else passed: he may play on his own play, or pass
    if nxt < 0:
        return _win_trick(state, hands, seat, trick, closes, reversed_, went_out, penalized,
                          log, events)
    state.hands = tuple(hands)
    state.to_act = nxt
    state.trick = trick
    state.passed = passed
    state.reversed = reversed_
    state.went_out = went_out
    state.penalized = penalized
    state.log = log
    return state


def _pass(state: State, seat: int, log: RoundLog, events: list[Event] | None) -> State:
    if events is not None:
        events.append(Passed(seat))
    rules = state.rules
    if rules.pass_limit and _all_passes(log, rules.pass_limit):
        return _end_round(state._replace(log=log), events)  # the endless-passing rule
    passed = state.passed | 1 << seat
    trick = state.trick
    if not trick:  # a lead pass (lead_pass)
        return _pass_lead(state, seat, passed, log, events)
    winner = trick[-1][0]
    nxt = _next_seat(state.hands, passed, seat)
    if nxt < 0 or (nxt == winner and not rules.play_on_own):
        return _win_trick(state, list(state.hands), winner, trick, False, state.reversed,
                          state.went_out, state.penalized, log, events)
    state.to_act = nxt
    state.passed = passed
    state.log = log
    return state


def _all_passes(log: RoundLog, count: int) -> bool:
    """Are the round's last ``count`` actions all passes? (The oldest of them read first:
    a play there, the usual case, answers at once.)"""
    if len(log) < count or log[-count].action is not PASS:
        return False
    for entry in reversed(log):
        if count == 0:
            return True
        if entry.action is not PASS:
            return False
        count -= 1
    return True


def _pass_lead(state: State, seat: int, passed: int, log: RoundLog,
               events: list[Event] | None) -> State:
    """The leader passed: the next seat leads; once every seat has passed the empty trick,
    the last to have played leads again (the next seat with cards if he is out)."""
    nxt = _next_seat(state.hands, passed, seat)
    if nxt < 0:
        last = next((e.seat for e in reversed(log) if type(e.action) is Play and e.action),
                    state.leader)
        nxt = last if state.hands[last] else _next_seat(state.hands, 0, last)
        passed = 0
        if events is not None:
            events.append(TrickWon(nxt, False, nxt))
    state.to_act = nxt
    state.passed = passed
    state.log = log
    return state


def _win_trick(state: State, hands: list[int], winner: int, trick: tuple[tuple[int, Play], ...],
               closed: bool, reversed_: bool, went_out: tuple[int, ...], penalized: int,
               log: RoundLog, events: list[Event] | None) -> State:
    discard = state.discard
    for _, play in trick:
        discard |= play.mask
    # the winner leads; if the winner has gone out, the next seat still in the round does
    leader = winner if hands[winner] else _next_seat(hands, 0, winner)
    if events is not None:
        events.append(TrickWon(winner, closed, leader))
    state.hands = tuple(hands)
    state.to_act = leader
    state.trick = ()
    state.passed = 0
    state.discard = discard
    state.reversed = reversed_
    state.went_out = went_out
    state.penalized = penalized
    state.log = log
    return state


def _end_round(state: State, events: list[Event] | None) -> State:
    if events is None:
        events = []  # rare: built and dropped
    n = state.players
    left = [s for s in range(n) if state.hands[s]]
    if len(left) > 1:  # the endless-passing rule: the places left go by lot
        random.Random(f"president:{state.seed}:{state.round_no}:passes").shuffle(left)
    went_out = state.went_out + tuple(left)
    penal = state.penalized
    # Players penalised for going out on the strongest rank drop below everyone else,
    # keeping among themselves the order in which they went out.
    ranking = tuple(s for s in went_out if not penal >> s & 1) + \
        tuple(s for s in went_out if penal >> s & 1)
    by_place = roles_by_place(n)
    roles: list[Role] = [Role.NEUTRE] * n
    points = [0] * n
    for place, s in enumerate(ranking):
        roles[s] = by_place[place]
        points[s] = n - place
    result = RoundResult(state.round_no, went_out, ranking, tuple(roles), tuple(points),
                         tuple(s for s in went_out if penal >> s & 1), state.exchanges)
    scores = tuple(a + b for a, b in zip(state.scores, points))
    events.append(RoundEnded(result))
    ended = state._replace(scores=scores, results=state.results + (result,), went_out=went_out)
    if state.round_no >= state.rules.rounds:
        over = ended._replace(phase=_OVER, to_act=-1)
        outcome = over.outcome
        assert outcome is not None
        events.append(SeriesEnded(outcome))
        return over
    following = state.round_no + 1
    return _start_round(ended, following,
                        None if _resets(state.rules, following) else tuple(roles), events)


def _start_round(state: State, round_no: int, roles: tuple[Role, ...] | None,
                 events: list[Event]) -> State:
    rules = state.rules
    hands = list(deal(rules, state.seed, round_no, _deal_start(rules, round_no, roles)))
    leader = _round_leader(rules, hands, roles)
    exchanging = roles is not None and rules.exchange
    events.append(RoundStarted(round_no, leader, exchanging))
    past_logs = state.past_logs + (state.log,) if round_no > 1 else ()
    fresh = state._replace(round_no=round_no, phase=_PLAY, to_act=leader, trick=(),
                           passed=0, discard=0, reversed=False, went_out=(), penalized=0,
                           roles=roles, pending=(), exchanges=(), log=(),
                           past_logs=past_logs, leader=leader)
    if not exchanging:
        return fresh._replace(hands=tuple(hands))
    assert roles is not None
    exchanges: list[Exchange] = []
    pending: list[tuple[int, int, int]] = []
    for low, high, count in exchange_pairs(rules.players):
        giver, receiver = roles.index(low), roles.index(high)
        best = highest_cards(hands[giver], count)
        hands[giver] ^= best
        hands[receiver] |= best
        exchanges.append(Exchange(giver, receiver, best, automatic=True))
        events.append(CardsGiven(giver, receiver, count, cards_of(best), automatic=True))
        pending.append((receiver, giver, count))
    return fresh._replace(phase=_EXCHANGE, hands=tuple(hands), to_act=pending[0][0],
                          pending=tuple(pending), exchanges=tuple(exchanges))


def _round_leader(rules: Rules, hands: Sequence[int], roles: tuple[Role, ...] | None) -> int:
    """Who leads the round (with an exchange and the 3 of diamonds' rule, its holder as
    the hands stand: the deal's, then again once the exchange is done)."""
    if roles is None:
        if rules.first_lead is FirstLead.FIRST_SEAT:
            return 0
        card = THREE_OF_CLUBS if rules.first_lead is FirstLead.THREE_OF_CLUBS \
            else THREE_OF_DIAMONDS
        return next(s for s, hand in enumerate(hands) if hand & card)
    if rules.later_lead is LaterLead.THREE_OF_DIAMONDS:
        return next(s for s, hand in enumerate(hands) if hand & THREE_OF_DIAMONDS)
    wanted = Role.TROU if rules.later_lead is LaterLead.TROU else Role.PRESIDENT
    return roles.index(wanted)


def _give(state: State, seat: int, give: Give, log: RoundLog, events: list[Event] | None) -> State:
    if events is None:
        events = []
    giver, receiver, count = state.pending[0]
    hands = list(state.hands)
    hands[giver] ^= give.mask
    hands[receiver] |= give.mask
    events.append(CardsGiven(giver, receiver, count, give.cards, automatic=False))
    pending = state.pending[1:]
    exchanges = state.exchanges + (Exchange(giver, receiver, give.mask, automatic=False),)
    if pending:
        return state._replace(hands=tuple(hands), to_act=pending[0][0], pending=pending,
                              exchanges=exchanges, log=log)
    leader = _round_leader(state.rules, hands, state.roles)  # (the 3 of diamonds may move)
    events.append(ExchangeDone(leader))
    return state._replace(phase=_PLAY, hands=tuple(hands), to_act=leader,
                          pending=(), exchanges=exchanges, log=log, leader=leader)
