"""Small helpers the handlers share: finding a game, a seat, replaying a log."""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Protocol, TypeVar

from engine import State, parse_action, replay
from services.domain import Caller, Game, GameSummary, Seat, key_owning
from services.errors import BadCursor, BadStatus, BadToken, GameNotFound
from services.ports import UnitOfWork

T = TypeVar("T")


def load(uow: UnitOfWork, game_id: str, at_least: int = 0, token: str | None = None) -> Game:
    return read(uow.games, game_id, at_least, token)


def read(source: Source, game_id: str, at_least: int = 0, token: str | None = None) -> Game:
    """The game; read again with its seats as stored if ``token`` opens none of the
    seats held here (a seat joined on another process a moment ago)."""
    game = found(source.get(game_id, at_least), game_id)
    if token is not None and game.seat_of(token) is None:
        game = found(source.fresh(game_id), game_id)
    return game


class Source(Protocol):
    """Where games are read from: the read side, or a unit of work's repository."""

    def get(self, game_id: str, at_least: int = 0) -> Game | None: ...

    def fresh(self, game_id: str) -> Game | None: ...


def found(value: T | None, game_id: str) -> T:
    if value is None:
        raise GameNotFound(f"no game {game_id!r}")
    return value


def seat_of(game: Game, token: str, caller: Caller) -> Seat:
    """The seat ``token`` opens. A token that opens none of a game the caller may not
    see answers as if there were no game (no refusal tells a private game exists)."""
    seat = game.seat_of(token)
    if seat is None:
        if not visible(game, caller):
            raise GameNotFound(f"no game {game.id!r}")
        raise BadToken("this token opens no seat of this game")
    return seat


def visible(game: Game, caller: Caller) -> bool:
    """May the caller know of the game without a seat's token: a public one, or a
    private one its owner's key asks about."""
    own = caller.key is not None and game.owner == caller.key.id
    return game.table.visibility == "public" or own


def viewer(game: Game, token: str | None, caller: Caller) -> int | None:
    """The seat a request sees the game as: its token's, or a spectator's (None). A
    private game is watched with its owner's key only; a public one by anybody (a key
    that may not read games watches none but its own). A game not to be seen answers as
    if there were none."""
    if token is not None:
        return seat_of(game, token, caller).seat
    if not visible(game, caller) or not caller.may("games:read"):
        raise GameNotFound(f"no game {game.id!r}")
    return None


STATUSES = ("waiting", "active", "over", "cancelled")


def valid_status(status: str | None) -> None:
    if status is not None and status not in STATUSES:
        raise BadStatus(f"status is one of {', '.join(STATUSES)}")


def encode_cursor(game: GameSummary) -> str:
    raw = f"{game.created_at.isoformat()}|{game.game_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if not cursor:
        return None
    try:
        created, game_id = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        if not game_id.isprintable():  # (no id holds one: PostgreSQL refuses a NUL)
            raise ValueError(game_id)
        return datetime.fromisoformat(created), game_id
    except (ValueError, UnicodeDecodeError):
        raise BadCursor("this cursor was not issued by this service") from None


def replay_log(uow: UnitOfWork, game: Game, version: int | None = None) -> State:
    """The state rebuilt from the game's seed and its first ``version`` stored actions
    (by default the game's version as read: a move committed since is left out)."""
    actions = uow.games.actions(game.id)[:game.version if version is None else version]
    return replay(game.state.rules, game.state.seed, [parse_action(a) for a in actions])


def accountable(source: Source, game_id: str, token: str | None) -> tuple[str | None, int | None]:
    """Whom a call on ``game_id`` counts against, as the game is held here: the game's
    owner (None: no such game, or an anonymous one) and the seat ``token`` holds (None:
    none). Reads no seats again: a token not found is the route's to refuse."""
    game = source.get(game_id)
    if game is None:
        return None, None
    seat = None if token is None else game.seat_of(token)
    return key_owning(game.owner), None if seat is None else seat.seat
