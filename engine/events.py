"""What an action caused, as values.

``apply`` returns these in the order they happened. Every event is public but
``CardsGiven``, whose cards only the giver and the receiver may see;
``engine.observe.redact`` hides them from anyone else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from engine.cards import Card
from engine.outcome import Outcome, RoundResult
from engine.plays import Play


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round_no: int
    leader: int  # who leads once the exchange (if any) is done
    exchange: bool  # an exchange phase comes first


@dataclass(frozen=True, slots=True)
class CardsGiven:
    giver: int
    receiver: int
    count: int
    cards: tuple[Card, ...] | None  # None once redacted for a seat that may not see them
    automatic: bool


@dataclass(frozen=True, slots=True)
class ExchangeDone:
    leader: int


@dataclass(frozen=True, slots=True)
class Played:
    seat: int
    play: Play


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@dataclass(frozen=True, slots=True)
class Skipped:
    """'Ça passe ou ça casse': the seat loses its turn, which counts as its pass."""

    seat: int


@dataclass(frozen=True, slots=True)
class Revolution:
    reversed: bool  # True: revolution order now in force; False: back to normal


@dataclass(frozen=True, slots=True)
class TrickWon:
    seat: int
    closed: bool  # ended at once by a closing play (2s, 3s in revolution, 8s)
    leader: int  # who leads the next trick (the winner, or the next seat if out)


@dataclass(frozen=True, slots=True)
class WentOut:
    seat: int
    place: int  # 1 for the first out; penalties are applied in the round result
    penalized: bool  # went out on the strongest rank under no_finish_on_two


@dataclass(frozen=True, slots=True)
class RoundEnded:
    result: RoundResult


@dataclass(frozen=True, slots=True)
class SeriesEnded:
    outcome: Outcome


Event = Union[RoundStarted, CardsGiven, ExchangeDone, Played, Passed, Skipped, Revolution,
              TrickWon, WentOut, RoundEnded, SeriesEnded]
