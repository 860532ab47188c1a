"""The full state of a series: everything, hidden cards included.

Only the engine and the service's store read a ``State``; players, the API and
the AI workers receive ``engine.observe.View`` values instead. A state is a
value of ints and tuples, never changed once handed out (the next action makes the
next state, sharing what did not change; only a simulation changes a state it made
for itself, ``apply_unchecked``'s ``owned``), and two states compare equal field by
field (replay tests).
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Iterator, NamedTuple

from engine.outcome import Exchange, Outcome, Role, RoundResult, Termination
from engine.plays import Action, Play
from engine.rules import Rules


class Phase(str, Enum):
    EXCHANGE = "exchange"  # Président / Vice-Président choose cards to give back
    PLAY = "play"  # tricks
    OVER = "over"  # the series has ended


_OVER = Phase.OVER  # (faster than through the Enum, on a hot path)


class LogEntry(NamedTuple):
    round_no: int
    seat: int
    action: Action


# A round's actions, oldest first. The log is kept per round so that appending copies
# at most one round's entries, and a long series never nests deeply.
RoundLog = tuple[LogEntry, ...]


class State:
    """The state of a series (the module's docstring says who may change one). A class
    with ``__slots__`` rather than a ``NamedTuple``: a field reads in a fifth of the
    time, and the engine reads a dozen an action (docs/decisions/performance-0009-*)."""

    __slots__ = ("rules", "seed", "round_no", "phase", "hands", "to_act", "trick", "passed",
                 "discard", "reversed", "went_out", "penalized", "roles", "scores", "pending",
                 "exchanges", "results", "log", "past_logs", "leader")

    rules: Rules
    seed: int
    round_no: int  # 1-based
    phase: Phase
    hands: tuple[int, ...]  # card mask per seat; 0 once a seat is out
    to_act: int  # the seat whose decision it is; -1 when the series is over
    trick: tuple[tuple[int, Play], ...]  # (seat, play) of the current trick, oldest first
    passed: int  # seats (bit per seat) that passed, or were skipped, in this trick
    discard: int  # cards of the tricks already won in this round
    reversed: bool  # revolution order in force
    went_out: tuple[int, ...]  # seats in the order they emptied their hands this round
    penalized: int  # seats (bit per seat) that went out on the strongest rank
    roles: tuple[Role, ...] | None  # roles earned in the previous round; None in round 1
    scores: tuple[int, ...]  # cumulative points per seat
    pending: tuple[tuple[int, int, int], ...]  # exchange gifts owed: (giver, receiver, count)
    exchanges: tuple[Exchange, ...]  # this round's exchanges so far
    results: tuple[RoundResult, ...]  # finished rounds
    log: RoundLog  # the actions of this round (the last one once the series is over)
    past_logs: tuple[RoundLog, ...]  # the actions of each earlier round
    leader: int  # who leads once the exchange is done (also who led this round)

    def __init__(self, rules: Rules, seed: int, round_no: int, phase: Phase,
                 hands: tuple[int, ...], to_act: int, trick: tuple[tuple[int, Play], ...],
                 passed: int, discard: int, reversed: bool, went_out: tuple[int, ...],
                 penalized: int, roles: tuple[Role, ...] | None, scores: tuple[int, ...],
                 pending: tuple[tuple[int, int, int], ...], exchanges: tuple[Exchange, ...],
                 results: tuple[RoundResult, ...], log: RoundLog,
                 past_logs: tuple[RoundLog, ...], leader: int) -> None:
        self.rules, self.seed, self.round_no, self.phase = rules, seed, round_no, phase
        self.hands, self.to_act, self.trick, self.passed = hands, to_act, trick, passed
        self.discard, self.reversed, self.went_out = discard, reversed, went_out
        self.penalized, self.roles, self.scores, self.pending = penalized, roles, scores, pending
        self.exchanges, self.results, self.log = exchanges, results, log
        self.past_logs, self.leader = past_logs, leader

    def _replace(self, **changes: Any) -> State:
        """A copy with ``changes``, as ``NamedTuple._replace``."""
        new = copied(self)
        for name, value in changes.items():
            setattr(new, name, value)
        return new

    def __iter__(self) -> Iterator[Any]:
        """The fields in order (``tuple(state)``: a snapshot to compare)."""
        return (getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is State and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return "State(" + ", ".join(f"{name}={getattr(self, name)!r}"
                                    for name in self.__slots__) + ")"

    def __reduce__(self) -> tuple[type[State], tuple[Any, ...]]:
        return State, tuple(self)

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def top(self) -> Play | None:
        """The play to beat, or None when the seat to act leads."""
        return self.trick[-1][1] if self.trick else None

    @property
    def top_seat(self) -> int:
        return self.trick[-1][0] if self.trick else -1

    @property
    def table(self) -> int:
        """The cards of the current trick."""
        mask = 0
        for _, play in self.trick:
            mask |= play.mask
        return mask

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def outcome(self) -> Outcome | None:
        if self.phase is not _OVER:
            return None
        last = self.results[-1].ranking
        standing = tuple(sorted(range(self.players), key=lambda s: (-self.scores[s], last.index(s))))
        return Outcome(Termination.ROUNDS_COMPLETED, self.scores, standing)

    def in_round(self, seat: int) -> bool:
        return self.hands[seat] != 0

    def actions(self) -> list[Action]:
        """The series' actions, oldest first: with rules and seed, they rebuild this state."""
        return [entry.action for entry in self.log_entries()]

    def log_entries(self) -> list[LogEntry]:
        """Every action of the series with its round and seat, oldest first."""
        return [entry for log in (*self.past_logs, self.log) for entry in log]

    def entries_after(self, count: int) -> list[LogEntry]:
        """The log entries after the first ``count``, oldest first, walking back from the
        newest (what a move just added, without going through a long series' log)."""
        newest: list[LogEntry] = []
        total = len(self.log) + sum(len(log) for log in self.past_logs)
        for log in (self.log, *reversed(self.past_logs)):
            if total - len(newest) <= count:
                break
            wanted = total - count - len(newest)
            newest[:0] = log[-wanted:] if wanted < len(log) else log
        return newest


_new = object.__new__


def copied(state: State) -> State:
    """A copy of ``state``, for the engine to set the fields an action changes before
    anyone else sees it (what ``_replace`` does, without naming them)."""
    new: State = _new(State)
    # (one statement a field: a multiple assignment would build and unpack a tuple)
    new.rules = state.rules
    new.seed = state.seed
    new.round_no = state.round_no
    new.phase = state.phase
    new.hands = state.hands
    new.to_act = state.to_act
    new.trick = state.trick
    new.passed = state.passed
    new.discard = state.discard
    new.reversed = state.reversed
    new.went_out = state.went_out
    new.penalized = state.penalized
    new.roles = state.roles
    new.scores = state.scores
    new.pending = state.pending
    new.exchanges = state.exchanges
    new.results = state.results
    new.log = state.log
    new.past_logs = state.past_logs
    new.leader = state.leader
    return new
