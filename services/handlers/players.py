"""Players: ids a client application gives its own users, namespaced by its key. The
service keeps no passwords: it trusts the key holder to say which player is calling."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from services.domain import AI_PREFIX, Caller, GameSummary
from services.errors import BadPlayer, KeyRequired, MissingScope, PlayerNotFound
from services.handlers.common import decode_cursor, encode_cursor, valid_status
from services.ports import UnitOfWork

LENGTH = 64  # a player id's and a display name's characters at most


class Player(NamedTuple):
    key: str  # the id of the key that named it
    id: str


def named(player: str | None, name: str | None, caller: Caller) -> Player | None:
    """The player a request names (with its display name), checked; None: no player."""
    if name is not None:
        _check("name", name)
    if player is None:
        return None
    _check("player_id", player)
    if caller.key is None:
        raise KeyRequired("a player id is a client key's own: send the key with it")
    return Player(caller.key.id, player)


def _check(what: str, text: str) -> None:
    if not 0 < len(text) <= LENGTH or not text.isprintable() or text != text.strip():
        raise BadPlayer(f"a {what} is 1 to {LENGTH} printable characters, with no space "
                        "at either end")
    if what == "player_id" and text.startswith(AI_PREFIX):
        raise BadPlayer(f"player ids starting {AI_PREFIX!r} are the AI levels'")


def player_games(player_id: str, status: str | None, limit: int, cursor: str | None,
                 uow: UnitOfWork, caller: Caller
                 ) -> tuple[list[GameSummary], str | None]:
    """A page of the key's player's games (in the key's own games: what it may list),
    newest first, and the next page's cursor."""
    valid_status(status)
    if caller.key is None:
        raise KeyRequired("players are a client key's own: send the key")
    if not caller.may("games:read"):
        raise MissingScope("this key may not list games: it needs games:read")
    player = named(player_id, None, caller)
    assert player is not None
    before: tuple[datetime, str] | None = decode_cursor(cursor)
    with uow:
        if not uow.players.exists(player.key, player.id):
            raise PlayerNotFound(f"this key has named no player {player_id!r}")
        games = uow.players.games(player.key, player.id, status, limit + 1, before)
    more, games = len(games) > limit, games[:limit]
    return games, encode_cursor(games[-1]) if more and games else None
