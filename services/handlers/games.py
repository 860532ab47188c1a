"""Creating, reading and listing games."""

from __future__ import annotations

import base64
import secrets
import uuid
from datetime import datetime

from config import tracing
from engine import Rules, new_series_with_events
from services.commands import CreateGame, ReadGame, TableDefaults
from services.domain import ANONYMOUS, Caller, Game, GameSummary, Seat, hash_token, new_token
from services.errors import (
    BadCursor, BadStatus, InvalidSeat, MissingScope, OptionsContradictSeats, QuotaExceeded,
)
from services.handlers.common import found, viewer
from services.handlers.moves import turn_message
from services.handlers.webhooks import hooks_of
from services.handlers.turns import ai_time_used
from services.ports import Reads, UnitOfWork
from services.views import CreatedGame, GameView


def create_game(cmd: CreateGame, uow: UnitOfWork, engines: tuple[str, ...],
                defaults: TableDefaults = TableDefaults(),
                caller: Caller = ANONYMOUS) -> CreatedGame:
    """``engines``: the AI engine names a seat may name (the levels and configured bots).
    The game belongs to ``caller``'s key; a game with no human seat needs its own scope
    (that is where the AI cost is)."""
    scope = ("games:create-human" if any(s.kind == "human" for s in cmd.seats)
             else "games:create-ai")
    if not caller.may(scope):
        raise MissingScope(f"this key may not create such a game: it needs {scope}")
    _within_quota(caller, uow, any(s.kind == "ai" for s in cmd.seats))
    rules = Rules.preset(cmd.preset, **_options(cmd))  # InvalidRules explains what is wrong
    tokens: dict[int, str] = {}
    seats = []
    for number, spec in enumerate(cmd.seats):
        if spec.kind == "human":
            tokens[number] = new_token()
            seats.append(Seat(number, "human", None, hash_token(tokens[number])))
        elif spec.kind == "ai" and spec.engine in engines:
            seats.append(Seat(number, "ai", spec.engine))
        else:
            raise InvalidSeat(f"seat {number}: a seat is human, or ai with an engine among "
                              f"{', '.join(engines)}")
    seed = cmd.seed if cmd.seed is not None else secrets.randbits(63)
    state, events = new_series_with_events(rules, seed)
    timeout = defaults.turn_timeout_ms if cmd.turn_timeout_ms is None else cmd.turn_timeout_ms
    game = Game(uuid.uuid4().hex, cmd.preset, tuple(seats), state,
                pace_ms=defaults.pace_ms if cmd.pace_ms is None else cmd.pace_ms,
                turn_timeout_ms=timeout or None, owner=caller.owner,  # timeout 0: no limit
                ai_seconds_per_hour=caller.ai_seconds_per_hour)
    with uow:
        uow.games.add(game, events, turn_message(game, tracing.traceparent()),
                      hooks_of(game, events, 0))
        uow.commit()
    return CreatedGame(GameView.of(game, None), tokens)


def _within_quota(caller: Caller, uow: UnitOfWork, ai_seats: bool) -> None:
    """A caller holds at most its quota of games under way, and its games with AI seats
    use at most its AI thinking time an hour (counted by the hour: the hour under way and
    the one before). (Two creates at the same moment may both pass: the quotas bound what
    a caller holds, give or take its concurrency, which the rate limits bound in turn.)"""
    with uow:
        if caller.max_active_games is not None:
            held = uow.games.active_count(caller.owner)
            if held >= caller.max_active_games:
                raise QuotaExceeded(f"{held} game(s) under way, the most this caller may "
                                    "hold: finish or wait for one")
        if ai_seats and caller.ai_seconds_per_hour is not None and caller.owner is not None:
            used = ai_time_used(uow, caller.owner)
            if used >= caller.ai_seconds_per_hour:
                raise QuotaExceeded(f"this caller's games used {used:.0f} s of AI thinking "
                                    f"in the last hour, its quota is "
                                    f"{caller.ai_seconds_per_hour} s: wait for it")


def _options(cmd: CreateGame) -> dict[str, object]:
    """The rules options over the preset: the seats say how many players, ``rounds`` how
    many rounds; an option that says otherwise is refused, never overridden."""
    options = dict(cmd.options)
    for name, value in (("players", len(cmd.seats)), ("rounds", cmd.rounds)):
        if value is None:
            continue
        if name in options and options[name] != value:
            raise OptionsContradictSeats(
                f"options.{name} is {options[name]!r}, but the game has {value} {name}")
        options[name] = value
    return options


def read_game(cmd: ReadGame, reads: Reads, *, history: bool = False,
              caller: Caller = ANONYMOUS) -> GameView:
    """The game as the token's seat sees it, or as a spectator: a key sees its own games
    only (another's answers as if there were none). The action history only when asked
    for (``GameView.view.history``)."""
    game = found(reads.get(cmd.game_id), cmd.game_id)
    return GameView.of(game, viewer(game, cmd.token, caller), history=history)



def list_games(status: str | None, limit: int, cursor: str | None, uow: UnitOfWork,
               caller: Caller = ANONYMOUS) -> tuple[list[GameSummary], str | None]:
    """A page of the caller's games (a key's own; without a key, the anonymous ones),
    newest first, and the cursor of the next page (None: last page)."""
    if status not in (None, "active", "over"):
        raise BadStatus("status is 'active' or 'over'")
    if not caller.may("games:read"):
        raise MissingScope("this key may not list games: it needs games:read")
    with uow:
        games = uow.games.page(caller.owner, status, limit + 1, _decode_cursor(cursor))
    more, games = len(games) > limit, games[:limit]
    return games, _encode_cursor(games[-1]) if more and games else None


def _encode_cursor(game: GameSummary) -> str:
    raw = f"{game.created_at.isoformat()}|{game.game_id}"
    return base64.urlsafe_b64encode(raw.encode()).decode()


def _decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if not cursor:
        return None
    try:
        created, game_id = base64.urlsafe_b64decode(cursor.encode()).decode().split("|")
        return datetime.fromisoformat(created), game_id
    except (ValueError, UnicodeDecodeError):
        raise BadCursor("this cursor was not issued by this service") from None
