"""Leaderboards and a player's figures (docs/ratings.md): what a key sees is its own
players and the AI levels as its own games rated them (each key rates them apart)."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass

from services.commands import RatingPolicy
from services.domain import (
    AI_PREFIX, Caller, PlayerRef, PoolSummary, RatedRound, Standing,
)
from services.errors import BadCursor, KeyRequired, MissingScope, PlayerNotFound
from services.handlers.players import named
from services.ports import UnitOfWork

HISTORY = 100  # a player's last rated rounds shown


def leaderboard(pool: str, limit: int, cursor: str | None, around: str | None,
                uow: UnitOfWork, caller: Caller, policy: RatingPolicy
                ) -> tuple[list[Standing], str | None]:
    """A page of the pool's board, best first, and the next page's cursor; or, with
    ``around``, that player among its neighbours (as many on each side as ``limit``)."""
    owner = _viewer(caller)
    with uow:
        if around is not None:
            return uow.ratings.around(pool, owner, _ref(around, caller), policy.min_rounds,
                                      limit), None
        page = uow.ratings.board(pool, owner, policy.min_rounds, limit + 1, _decode(cursor))
    more, page = len(page) > limit, page[:limit]
    return page, board_cursor(page[-1]) if more and page else None


@dataclass(frozen=True)
class Profile:
    player_id: str
    pools: list[PoolSummary]
    history: list[tuple[str, RatedRound]]  # newest first, with their pools


def profile(player_id: str, uow: UnitOfWork, caller: Caller) -> Profile:
    """A key's player's (or an AI level's, in the key's games) rating, figures and last
    rounds per pool."""
    ref = _ref(player_id, caller)
    with uow:
        if not ref.is_ai and not uow.players.exists(ref.owner, ref.player):
            raise PlayerNotFound(f"this key has named no player {player_id!r}")
        return Profile(player_id, uow.ratings.summaries(ref.owner, ref.player),
                       uow.ratings.history(ref.owner, ref.player, HISTORY))


def _viewer(caller: Caller) -> str:
    if caller.key is None:
        raise KeyRequired("leaderboards and players are a client key's: send the key")
    if not caller.may("games:read"):
        raise MissingScope("this key may not read games: it needs games:read")
    return caller.key.id


def _tenant(caller: Caller) -> str:
    """Whose view of the AI levels the caller reads: its key's, else (open mode) its
    origin's: the owner its games get."""
    if caller.key is not None or caller.owner is None:
        return _viewer(caller)
    return caller.owner


def _ref(player: str, caller: Caller) -> PlayerRef:
    """The player as the caller sees it: its key's own, or an AI level in its games."""
    if player.startswith(AI_PREFIX):
        return PlayerRef(_tenant(caller), player)
    named_ = named(player, None, caller)
    assert named_ is not None
    return PlayerRef(_viewer(caller), named_.id)



def board_cursor(last: Standing) -> str:
    """The cursor of the page after ``last``."""
    raw = json.dumps([last.rating.ordinal, last.ref.owner, last.ref.player, last.rank])
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode(cursor: str | None) -> tuple[float, str, str, int] | None:
    if not cursor:
        return None
    try:
        ordinal, owner, player, rank = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return float(ordinal), str(owner), str(player), int(rank)
    except (ValueError, TypeError, UnicodeDecodeError):
        raise BadCursor("this cursor was not issued by this service") from None
