"""What the handlers answer: a game, an event, as one seat (or a spectator) may see them."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Callable

from engine import Event, View, observe
from services.domain import Game, Seat, ServiceEvent


@dataclass(frozen=True)
class GameView:
    """A game as one seat (``seat``; None: a spectator) may see it. The engine's view is
    made when first asked for: a caller that has it rendered already, for this game,
    version and seat, never pays for it."""

    game_id: str
    version: int
    status: str
    preset: str
    seats: tuple[Seat, ...]
    seat: int | None
    _observe: Callable[[], View] = field(repr=False, compare=False)
    pace_ms: int = 0
    turn_timeout_ms: int | None = None
    seated: int = 0  # the game's seat changes so far (its seats are part of the view)
    visibility: str = "public"
    hints: bool = True
    seeded: bool = False

    @cached_property
    def view(self) -> View:
        return self._observe()

    @classmethod
    def of(cls, game: Game, seat: int | None, *, history: bool = False) -> GameView:
        return cls(game.id, game.version, game.status, game.preset, game.seats, seat,
                   partial(observe, game.state, seat, history=history), game.pace_ms,
                   game.turn_timeout_ms, game.seated, game.table.visibility,
                   game.table.hints, game.table.seeded)


@dataclass(frozen=True)
class CreatedGame:
    game: GameView
    tokens: dict[int, str]  # human seat -> its secret token, shown once
    invite: str | None = None  # the invite code of a game with open seats


@dataclass(frozen=True)
class EventView:
    seq: int
    version: int
    event: Event | ServiceEvent  # already redacted for the reader
