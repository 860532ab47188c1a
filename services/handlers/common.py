"""Small helpers the handlers share: finding a game, a seat, replaying a log."""

from __future__ import annotations

from typing import TypeVar

from engine import State, parse_action, replay
from services.domain import Caller, Game, Seat
from services.errors import BadToken, GameNotFound
from services.ports import UnitOfWork

T = TypeVar("T")


def load(uow: UnitOfWork, game_id: str, at_least: int = 0) -> Game:
    return found(uow.games.get(game_id, at_least), game_id)


def found(value: T | None, game_id: str) -> T:
    if value is None:
        raise GameNotFound(f"no game {game_id!r}")
    return value


def seat_of(game: Game, token: str) -> Seat:
    seat = game.seat_of(token)
    if seat is None:
        raise BadToken("this token opens no seat of this game")
    return seat


def viewer(game: Game, token: str | None, caller: Caller) -> int | None:
    """The seat a request sees the game as: its token's, or a spectator's (None). A
    spectator with a key watches that key's games only (another key's game answers as if
    there were none)."""
    if token is not None:
        return seat_of(game, token).seat
    if caller.key is not None and (game.owner != caller.key.id or not caller.may("games:read")):
        raise GameNotFound(f"no game {game.id!r}")
    return None


def replay_log(uow: UnitOfWork, game: Game, version: int | None = None) -> State:
    """The state rebuilt from the game's seed and its first ``version`` stored actions
    (by default the game's version as read: a move committed since is left out)."""
    actions = uow.games.actions(game.id)[:game.version if version is None else version]
    return replay(game.state.rules, game.state.seed, [parse_action(a) for a in actions])
