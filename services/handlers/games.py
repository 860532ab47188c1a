"""Creating, reading and listing games."""

from __future__ import annotations

import uuid
from typing import Callable, cast

from config import tracing
from engine import Rules, new_series_with_events
from services.commands import CreateGame, ReadGame, TableDefaults
from services.commands import SeatSpec
from services.domain import (
    ANONYMOUS, Caller, Game, GameSummary, Seat, Table, Visibility, hash_token, invite_hash,
    new_invite_code, new_seed, new_token,
)
from services.errors import InvalidSeat, MissingScope, OptionsContradictSeats, SeedNotAllowed
from services.handlers.common import decode_cursor, encode_cursor, read, valid_status, viewer
from services.handlers.players import named
from services.handlers.followups import follow_ups
from services.handlers.quotas import allowance, within_quota
from services.ports import Reads, UnitOfWork
from services.views import CreatedGame, GameView


def create_game(cmd: CreateGame, uow: UnitOfWork, engines: tuple[str, ...],
                defaults: TableDefaults = TableDefaults(),
                caller: Caller = ANONYMOUS, draw: Callable[[], int] = new_seed) -> CreatedGame:
    """``engines``: the AI engine names a seat may name (the levels and configured bots).
    The game belongs to ``caller``'s key; a game with no human seat needs its own scope
    (that is where the AI cost is). ``draw``: the seed of a game sent none (a test's
    seam: no request reaches it)."""
    scope = ("games:create-human" if any(s.kind == "human" for s in cmd.seats)
             else "games:create-ai")
    if not caller.may(scope):
        raise MissingScope(f"this key may not create such a game: it needs {scope}")
    with uow:
        within_quota(uow, allowance(caller), any(s.kind == "ai" for s in cmd.seats))
    rules = Rules.preset(cmd.preset, **_options(cmd))  # InvalidRules explains what is wrong
    takeover = "normal" if cmd.takeover is None else cmd.takeover
    if takeover not in engines:
        raise InvalidSeat(f"takeover is an AI engine among {', '.join(engines)}")
    tokens: dict[int, str] = {}
    seats = [_seat(number, spec, engines, caller, tokens)
             for number, spec in enumerate(cmd.seats)]
    _one_seat_a_player(seats)
    _seed_allowed(cmd.seed, seats)
    seed = cmd.seed if cmd.seed is not None else draw()
    state, events = new_series_with_events(rules, seed)
    timeout = defaults.turn_timeout_ms if cmd.turn_timeout_ms is None else cmd.turn_timeout_ms
    waiting = any(s.kind == "open" for s in seats)
    table = Table("waiting" if waiting else "playing",
                  cast(Visibility, cmd.visibility or ("public" if caller.key is None
                                                      else "private")), takeover, cmd.hints,
                  seeded=cmd.seed is not None)
    game = Game(uuid.uuid4().hex, cmd.preset, tuple(seats), state,
                pace_ms=defaults.pace_ms if cmd.pace_ms is None else cmd.pace_ms,
                turn_timeout_ms=timeout or None, owner=caller.owner,  # timeout 0: no limit
                ai_seconds_per_hour=caller.ai_seconds_per_hour, table=table,
                max_active_games=caller.max_active_games)
    invite = new_invite_code() if waiting else None
    with uow:
        then = follow_ups(game, events, 0, trace=tracing.traceparent())
        uow.games.add(game, events, then.message, then.hooks,
                      None if invite is None else invite_hash(invite))
        for seat in seats:
            if seat.player is not None and seat.player_key is not None:
                uow.players.name(seat.player_key, seat.player, seat.name)
        uow.commit()
    return CreatedGame(GameView.of(game, None), tokens, invite)


def _seat(number: int, spec: SeatSpec, engines: tuple[str, ...], caller: Caller,
          tokens: dict[int, str]) -> Seat:
    """Seat ``number`` as ``spec`` asks (a human's token put in ``tokens``)."""
    player = named(spec.player, spec.name, caller)
    if spec.kind in ("ai", "open") and spec.player is not None:
        raise InvalidSeat(f"seat {number}: only a human seat has a player")
    if spec.kind == "human":
        tokens[number] = new_token()
        return Seat(
            seat=number,
            kind="human",
            engine=None,
            token_hash=hash_token(tokens[number]),
            player=player and player.id,
            name=spec.name,
            host=True,
            player_key=player and player.key,
        )
    if spec.kind == "ai" and spec.engine in engines:
        return Seat(number, "ai", spec.engine, name=spec.name)
    if spec.kind == "open" and spec.engine is None:
        return Seat(number, "open", name=spec.name)
    raise InvalidSeat(f"seat {number}: a seat is human, open, or ai with an engine among "
                      f"{', '.join(engines)}")


def _one_seat_a_player(seats: list[Seat]) -> None:
    players = [s.player for s in seats if s.player is not None]
    if len(players) != len(set(players)):
        raise InvalidSeat("a player has one seat of a game at most")


def _seed_allowed(seed: int | None, seats: list[Seat]) -> None:
    """A chosen deal only where nobody but the creator could sit: its one human seat at
    most, no open seat, no player (a player is rated: a chosen deal rates nobody)."""
    humans = [s for s in seats if s.kind != "ai"]
    if seed is not None and (len(humans) > 1 or any(s.kind == "open" or s.player is not None
                                                    for s in humans)):
        raise SeedNotAllowed("a seed is for a game of the creator's own seat and AI seats "
                             "only: where anybody else could sit, the service draws the deal")


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
    game = read(reads, cmd.game_id, token=cmd.token)
    return GameView.of(game, viewer(game, cmd.token, caller), history=history)



def list_games(status: str | None, limit: int, cursor: str | None, uow: UnitOfWork,
               caller: Caller = ANONYMOUS) -> tuple[list[GameSummary], str | None]:
    """A page of the caller's games (a key's own; without a key, the anonymous ones),
    newest first, and the cursor of the next page (None: last page)."""
    valid_status(status)
    if not caller.may("games:read"):
        raise MissingScope("this key may not list games: it needs games:read")
    with uow:
        games = uow.listing.page(caller.owner, status, limit + 1, decode_cursor(cursor))
    more, games = len(games) > limit, games[:limit]
    return games, encode_cursor(games[-1]) if more and games else None
