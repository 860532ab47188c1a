"""Tables: open seats, joining, starting early, cancelling, leaving, rematches
(docs/lobby.md).

Every change of a game's seats is one write conditional on the version and on the count
of seat changes read (``GameRepository.reseat``), as a move is: of two joins racing for
the last seat exactly one is written; the other reads the game again and finds it full.
Nobody's seat is given twice, none is lost, and a series has one rematch at most.
"""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import replace
from typing import Callable, NamedTuple, TypeVar

from config import tracing
from engine import Event, new_series_with_events
from services.commands import Join, Start
from services.domain import (
    ANONYMOUS, Caller, Game, Seat, ServiceEvent, TableEvent, hash_token, invite_hash,
    new_invite_code, new_seed, new_token,
)
from services.errors import (
    GameFull, GameSeeded, InvalidSeat, InviteNotFound, MissingScope, NotActive, NotHost,
    NotWaiting, SeriesNotOver, StaleVersion,
)
from services.handlers.common import found, seat_of, viewer
from services.handlers.players import Player, named
from services.handlers.quotas import Allowance, within_quota
from services.handlers.followups import follow_ups
from services.ports import UnitOfWork, VersionConflict
from services.views import GameView

T = TypeVar("T")
ATTEMPTS = 10  # a seat change read again and tried again after another writer's


class Seated(NamedTuple):
    """A seat just taken: the game as that seat sees it, and its token, shown once."""

    game: GameView
    seat: int
    token: str


def join(cmd: Join, uow: UnitOfWork, caller: Caller) -> Seated:
    """Take the first open seat of the waiting game the invite opens; the game starts
    when it was the last. A player who joins again gets the seat it has, with a new
    token (the old one no longer opens it)."""
    if not caller.may("games:create-human"):
        raise MissingScope("this key may not join games: it needs games:create-human")
    player = named(cmd.player, cmd.name, caller)
    invite = invite_hash(cmd.code)

    def change() -> Seated:
        with uow:
            game_id = None if invite is None else uow.lobby.by_invite(invite)
            if game_id is None:
                raise InviteNotFound("no game has this invite code (it may have been "
                                     "rotated)")
            game = found(uow.games.fresh(game_id), game_id)
            seat = _seat_for(game, player)
            token = new_token()
            taken = replace(seat, kind="human", token_hash=hash_token(token),
                            player=player and player.id, player_key=player and player.key,
                            name=cmd.name if cmd.name is not None else seat.name)
            events: list[ServiceEvent] = []
            if seat.kind == "open":
                events.append(TableEvent("seat_joined", seat.seat, name=taken.name))
            _write(uow, game, _with_seat(game, taken), events)
            if player is not None:
                uow.players.name(player.key, player.id, cmd.name)
            uow.commit()
        return Seated(GameView.of(game, seat.seat), seat.seat, token)

    return retried(change)


def _seat_for(game: Game, player: Player | None) -> Seat:
    """The player's seat if it has one in a game not over, else the first open seat of
    a waiting game."""
    _unseeded(game)
    if player is not None and game.status in ("waiting", "active"):
        for seat in game.seats:
            if (seat.kind == "human" and seat.player == player.id
                    and seat.player_key == player.key):
                return seat
    _still_waiting(game)
    free = [s for s in game.seats if s.kind == "open"]
    if not free:
        raise GameFull("every seat of this game is taken")
    return free[0]


def start(cmd: Start, uow: UnitOfWork, caller: Caller, engines: tuple[str, ...]) -> GameView:
    """Start a waiting game now: its open seats are played by the AI level ``fill``."""
    def change() -> GameView:
        with uow:
            game = _hosted_waiting(uow, cmd.game_id, cmd.token, caller)
            fill = game.table.takeover if cmd.fill is None else cmd.fill
            if fill not in engines:
                raise InvalidSeat(f"fill is an AI engine among {', '.join(engines)}")
            opened = [s.seat for s in game.seats if s.kind == "open"]
            seats = tuple(Seat(s.seat, "ai", fill, name=s.name) if s.kind == "open" else s
                          for s in game.seats)
            _write(uow, game, seats, [], fill=(tuple(opened), fill))
            uow.commit()
        return GameView.of(game, None)

    return retried(change)


def cancel(game_id: str, token: str | None, uow: UnitOfWork, caller: Caller) -> GameView:
    """Cancel a waiting game: nobody joins or plays it any more."""
    def change() -> GameView:
        with uow:
            game = _hosted_waiting(uow, game_id, token, caller)
            read_version, read_seated = game.version, game.seated
            game.table = replace(game.table, phase="cancelled")
            uow.games.reseat(game, read_version, read_seated, [TableEvent("game_cancelled")])
            uow.commit()
        return GameView.of(game, None)

    return retried(change)


def new_invite(game_id: str, token: str | None, uow: UnitOfWork, caller: Caller) -> str:
    """A new invite code for a waiting game; the one before opens nothing any more."""
    with uow:
        game = found(uow.games.fresh(game_id), game_id)
        _host(game, token, caller)
        _unseeded(game)
        _still_waiting(game)
        code = new_invite_code()
        uow.lobby.set_invite(game.id, invite_hash(code))
        uow.commit()
    return code


def leave(game_id: str, token: str, uow: UnitOfWork, caller: Caller = ANONYMOUS
          ) -> GameView:
    """The token's seat leaves: in a waiting game its seat is open again; in a game
    under way the game's takeover level plays it for the rest of the series. The token
    opens nothing any more."""
    def change() -> GameView:
        with uow:
            game = found(uow.games.fresh(game_id), game_id)
            seat = seat_of(game, token, caller)
            if game.status in ("over", "cancelled"):
                raise NotActive(f"the game is {game.status}: there is nothing to leave")
            if game.status == "waiting":
                _write(uow, game, _with_seat(game, Seat(seat.seat, "open", name=seat.name)),
                       [TableEvent("seat_left", seat.seat)])
            else:
                take_over(uow, game, seat.seat, "left")
            uow.commit()
        return GameView.of(game, None)

    return retried(change)


def take_over(uow: UnitOfWork, game: Game, seat: int, reason: str) -> None:
    """(In ``uow``, uncommitted.) The game's takeover level plays ``seat`` from now on;
    its human's token opens nothing any more."""
    engine = game.table.takeover
    human = game.seats[seat]
    ai = replace(human, kind="ai", engine=engine, token_hash=None, host=False,
                 connected=False)
    events: list[ServiceEvent] = [TableEvent("seat_left", seat)] if reason == "left" else []
    events.append(TableEvent("seat_taken_over", seat, engine=engine, reason=reason))
    _write(uow, game, _with_seat(game, ai), events)


def rematch(game_id: str, token: str, uow: UnitOfWork, caller: Caller = ANONYMOUS
            ) -> Seated:
    """The next series, same rules and seats: the first seat to ask creates it (its AI
    seats AI, its other human seats open for their own players' calls); each seat after
    takes its own seat in it. A seat that asks again gets a new token for its seat."""
    def change() -> Seated:
        with uow:
            old = found(uow.games.fresh(game_id), game_id)
            seat = seat_of(old, token, caller).seat
            if old.status != "over":
                raise SeriesNotOver("a rematch comes once the series is over")
            made = uow.lobby.rematch_of(old.id)
            if made is None:
                new, events = _next_series(old)
                within_quota(uow, Allowance(old.owner, old.max_active_games,
                                            old.ai_seconds_per_hour),
                             any(s.kind == "ai" for s in new.seats))
                read_version, read_seated = old.version, old.seated
                uow.games.reseat(old, read_version, read_seated,
                                 [TableEvent("rematch_created", rematch=new.id)])
                if not uow.lobby.set_rematch(old.id, new.id):
                    raise VersionConflict(f"game {old.id} has a rematch already")
                claimed, given = _claimed(new, seat)
                new.seats = _with_seat(new, claimed)
                if not any(s.kind == "open" for s in new.seats):
                    new.table = replace(new.table, phase="playing")
                then = follow_ups(new, events, 0, trace=tracing.traceparent())
                uow.games.add(new, events, then.message, then.hooks)
            else:
                new = found(uow.games.fresh(made), made)
                before = new.seats[seat]
                if before.kind == "ai" or new.status not in ("waiting", "active"):
                    raise NotWaiting("the rematch went on without this seat")
                claimed, given = _claimed(new, seat)
                _write(uow, new, _with_seat(new, claimed),
                       [TableEvent("seat_joined", seat, name=before.name)]
                       if before.kind == "open" else [])
            uow.commit()
        return Seated(GameView.of(new, seat), seat, given)

    return retried(change)


def _next_series(old: Game) -> tuple[Game, list[Event]]:
    """The rematch of ``old``, waiting for its human seats, and its first events: its
    AI seats stay AI (a seat taken over stays taken over), its humans' seats are open,
    kept for them; a deal drawn anew (a seeded series' rematch is drawn too)."""
    seats = tuple(
        s
        if s.kind == "ai"
        else Seat(
            seat=s.seat,
            kind="open",
            engine=None,
            token_hash=None,
            player=s.player,
            name=s.name,
            host=s.host,
            player_key=s.player_key,
        )
        for s in old.seats
    )
    if old.table.seeded and sum(s.kind == "open" for s in seats) > 1:
        raise GameSeeded("this series' deal was its creator's choice: its rematch would "
                         "seat others")
    state, events = new_series_with_events(old.state.rules, new_seed())
    return Game(uuid.uuid4().hex, old.preset, seats, state, pace_ms=old.pace_ms,
                turn_timeout_ms=old.turn_timeout_ms, owner=old.owner,
                ai_seconds_per_hour=old.ai_seconds_per_hour,
                table=replace(old.table, phase="waiting", seeded=False),
                max_active_games=old.max_active_games), events


def _claimed(game: Game, seat: int) -> tuple[Seat, str]:
    """``seat`` of ``game`` made human with a new token, and the token."""
    token = new_token()
    return replace(game.seats[seat], kind="human", token_hash=hash_token(token)), token


def _write(uow: UnitOfWork, game: Game, seats: tuple[Seat, ...],
           events: list[ServiceEvent], fill: tuple[tuple[int, ...], str] | None = None
           ) -> None:
    """Write ``game`` with ``seats``: a waiting game with no open seat left starts
    (``fill``: the seats an AI level took to start it), with its first turn's message;
    a seat to act taken over gets the AI's."""
    read_version, read_seated = game.version, game.seated
    acting = game.seat_to_act
    game.seats = seats
    if game.status == "waiting" and not any(s.kind == "open" for s in seats):
        game.table = replace(game.table, phase="playing")
        filled, engine = fill or ((), None)
        events = [*events, TableEvent("game_started", filled=filled, engine=engine)]
    # The turn starts again if the game just started or its seat to act changed hands;
    # else its time limit and its message (an AI's, on its way) stand.
    now = game.seat_to_act
    turn = now is not None and (acting is None or acting.kind != now.kind)
    then = follow_ups(game, events, game.events, turn, tracing.traceparent())
    uow.games.reseat(game, read_version, read_seated, events, turn, then.message, then.hooks)


def _with_seat(game: Game, seat: Seat) -> tuple[Seat, ...]:
    return tuple(seat if s.seat == seat.seat else s for s in game.seats)


def _hosted_waiting(uow: UnitOfWork, game_id: str, token: str | None,
                    caller: Caller) -> Game:
    """The game, if the caller runs its table (first: a private game is not told to
    exist, waiting or not) and it waits for players."""
    game = found(uow.games.fresh(game_id), game_id)
    _host(game, token, caller)
    _still_waiting(game)
    return game


def _unseeded(game: Game) -> None:
    """A game whose deal its creator chose seats nobody else (docs/lobby.md#fair-deals)."""
    if game.table.seeded:
        raise GameSeeded("this game's deal was its creator's choice: nobody else sits in it")


def _still_waiting(game: Game) -> None:
    if game.status != "waiting":
        raise NotWaiting(f"the game is {game.status}, not waiting for players")


def _host(game: Game, token: str | None, caller: Caller) -> None:
    """Only the game's owner key, or a seat human since the creation, runs its table
    (a caller who may not even watch the game is told there is none)."""
    if token is not None:
        if seat_of(game, token, caller).host:
            return
    elif caller.key is not None and caller.key.id == game.owner:
        return
    else:
        viewer(game, None, caller)  # GameNotFound for a private game
    raise NotHost("only the key that made this game, or a seat it made human, may do this")


def retried(change: Callable[[], T]) -> T:
    """``change`` again, on the game read again, while another writer beat it to it."""
    for attempt in range(ATTEMPTS):
        try:
            return change()
        except VersionConflict:
            time.sleep(random.uniform(0, 0.005 * 2 ** min(attempt, 5)))
    raise StaleVersion("the game kept changing meanwhile: try again")
