"""The service layer: each function takes a command and a unit of work (cosmicpython).

A move goes entry point → here → engine → store, inside one transaction whose write is
conditional on the version read: of two concurrent moves exactly one applies, the
other gets ``StaleVersion``. AI seats are played through the ``TurnScheduler`` port.
"""

from __future__ import annotations

import base64
import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property, partial
from typing import Callable, ContextManager, Protocol, TypeVar

from engine import (
    PRESETS, Event, Rules, RoundStarted, State, View, apply, new_series_with_events, observe,
    parse_action, redact, replay,
)
from engine.errors import PresidentError
from engine.plays import Action
from services.commands import Act, CreateGame, ReadGame, TableDefaults
from services.domain import Game, PlayedFor, Seat, hash_token, new_token
from services.errors import BadRequest, BadToken, GameNotFound, KeyReused, StaleVersion
from services.store.repository import VersionConflict
from services.store.uow import UnitOfWork

AI_ENGINES_BUILT_IN = ("easy", "normal", "hard", "expert")
T = TypeVar("T")


class TurnScheduler(Protocol):
    """Told, after each committed move, whose turn it is now (``schedule_next``)."""

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, expires_s: float | None = None) -> None:
        """AI ``seat`` is to act at ``version``: have ``engine`` play it, after ``delay_s``
        (and not at all once ``expires_s`` have passed: the sweeper will send it again)."""

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float) -> None:
        """Human ``seat`` is to act at ``version`` and has ``timeout_s`` to do so."""


class Reads(Protocol):
    """Where the read functions find games: ``services.store.reads.GameReads`` (its own
    autocommit connections, no unit of work) or, inside a unit of work, its
    repository."""

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """``at_least``: a version the caller knows the game has reached."""

    def events_after(self, game_id: str, after: int,
                     limit: int) -> list[tuple[int, int, Event | PlayedFor]]: ...

    def watching(self, game_id: str) -> ContextManager[Callable[[float], None]]:
        """``wait(at_most_s)`` for the game's next move, from before the caller reads."""


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

    @cached_property
    def view(self) -> View:
        return self._observe()

    @classmethod
    def of(cls, game: Game, seat: int | None, *, history: bool = False) -> GameView:
        return cls(game.id, game.version, game.status, game.preset, game.seats, seat,
                   partial(observe, game.state, seat, history=history), game.pace_ms,
                   game.turn_timeout_ms)


@dataclass(frozen=True)
class CreatedGame:
    game: GameView
    tokens: dict[int, str]  # human seat -> its secret token, shown once


def create_game(cmd: CreateGame, uow: UnitOfWork, scheduler: TurnScheduler,
                engines: tuple[str, ...] = AI_ENGINES_BUILT_IN,
                defaults: TableDefaults = TableDefaults()) -> CreatedGame:
    if cmd.preset not in PRESETS:
        raise BadRequest(f"unknown preset {cmd.preset!r}; known: {', '.join(PRESETS)}")
    options = dict(cmd.options, players=len(cmd.seats))
    if cmd.rounds is not None:
        options["rounds"] = cmd.rounds
    rules = Rules.preset(cmd.preset, **options)  # InvalidRules explains what is wrong
    tokens: dict[int, str] = {}
    seats = []
    for number, spec in enumerate(cmd.seats):
        if spec.kind == "human":
            tokens[number] = new_token()
            seats.append(Seat(number, "human", None, hash_token(tokens[number])))
        elif spec.kind == "ai" and spec.engine in engines:
            seats.append(Seat(number, "ai", spec.engine))
        else:
            raise BadRequest(f"seat {number}: a seat is human, or ai with an engine among "
                             f"{', '.join(engines)}")
    seed = cmd.seed if cmd.seed is not None else secrets.randbits(63)
    state, events = new_series_with_events(rules, seed)
    timeout = defaults.turn_timeout_ms if cmd.turn_timeout_ms is None else cmd.turn_timeout_ms
    game = Game(uuid.uuid4().hex, cmd.preset, tuple(seats), state,
                pace_ms=defaults.pace_ms if cmd.pace_ms is None else cmd.pace_ms,
                turn_timeout_ms=timeout or None)  # 0: no limit
    with uow:
        uow.games.add(game, events)
        uow.commit()
    schedule_next(game, scheduler)
    return CreatedGame(GameView.of(game, None), tokens)


def read_game(cmd: ReadGame, reads: Reads, *, history: bool = False) -> GameView:
    """The game as the token's seat (or a spectator) sees it; the action history only
    when asked for (``GameView.view.history``)."""
    game = _found(reads.get(cmd.game_id), cmd.game_id)
    seat = None if cmd.token is None else _seat_of(game, cmd.token).seat
    return GameView.of(game, seat, history=history)


def act(cmd: Act, uow: UnitOfWork, scheduler: TurnScheduler) -> GameView:
    action = parse_action(cmd.action)  # InvalidAction for unknown or duplicate cards
    with uow:
        played = _played_as_known(uow, cmd, action) or _played_after_reading(uow, cmd, action)
    if isinstance(played, GameView):  # the first result of a retried request
        return played
    game, seat = played
    schedule_next(game, scheduler)
    return GameView.of(game, seat)


def _played_after_reading(uow: UnitOfWork, cmd: Act,
                          action: Action) -> tuple[Game, int] | GameView:
    """The ordinary path: read the game, check the token, the Idempotency-Key and the
    version, play. (game, seat) once played; the earlier result for a known key."""
    game = _load(uow, cmd.game_id, at_least=cmd.version)
    seat = _seat_of(game, cmd.token).seat  # only human seats have tokens
    first = _first_result(uow, game, seat, cmd)
    if first is not None:
        return first
    if cmd.version != game.version:
        raise StaleVersion(f"the game is at version {game.version}, not {cmd.version}")
    try:
        apply_and_save(uow, game, action, seat, cmd.idempotency_key)
    except StaleVersion:  # a concurrent retry of the same request may have won
        first = _first_result(uow, game, seat, cmd)
        if first is None:
            raise
        return first
    return game, seat


def _played_as_known(uow: UnitOfWork, cmd: Act, action: Action) -> tuple[Game, int] | None:
    """Play on this process's own state of the game at the client's version, without
    reading the game first: the write is conditional on that version anyway, so if the
    game moved on meanwhile it fails as stale, as it would after a read. Anything else
    (an unknown state, a bad token, an action the engine refuses, an Idempotency-Key)
    is left to the ordinary path, which reads the game and says what is wrong."""
    if cmd.idempotency_key is not None:
        return None
    game = uow.games.known(cmd.game_id, cmd.version)
    seat = None if game is None else game.seat_of(cmd.token)
    if game is None or seat is None:
        return None
    try:
        apply_and_save(uow, game, action, seat.seat)
    except PresidentError:
        return None
    return game, seat.seat


def _first_result(uow: UnitOfWork, game: Game, seat: int, cmd: Act) -> GameView | None:
    """The result of the earlier action sent with this Idempotency-Key, rebuilt from the
    log at the version it produced; None if the key is new."""
    if cmd.idempotency_key is None:
        return None
    remembered = uow.games.remembered(game.id, seat, cmd.idempotency_key)
    if remembered is None:
        return None
    action, version = remembered
    if action != cmd.action:
        raise KeyReused("this Idempotency-Key was sent before with another action")
    then = Game(game.id, game.preset, game.seats, _replay_log(uow, game, version), version,
                pace_ms=game.pace_ms, turn_timeout_ms=game.turn_timeout_ms)
    return GameView.of(then, seat)


@dataclass(frozen=True)
class EventView:
    seq: int
    version: int
    event: Event | PlayedFor  # already redacted for the reader


def events_after(game_id: str, token: str | None, after: int, reads: Reads,
                 limit: int = 500) -> tuple[list[EventView], int]:
    """The game's events numbered above ``after`` as the token's seat (or a spectator) may
    see them, and the number of the game's last event."""
    game = _found(reads.get(game_id), game_id)
    seat = None if token is None else _seat_of(game, token).seat
    rows = reads.events_after(game_id, after, limit)
    last = max(game.events, rows[-1][0] if rows else 0)  # (the state may not be the newest)
    return [EventView(seq, version, event if isinstance(event, PlayedFor) else redact(event, seat))
            for seq, version, event in rows], last


def wait_for_events(game_id: str, token: str | None, after: int, wait_s: float,
                    reads: Reads) -> tuple[list[EventView], int]:
    """``events_after``, waiting up to ``wait_s`` seconds for one if there is none yet
    (long polling): woken by the next move of the game."""
    deadline = time.monotonic() + wait_s
    while True:
        with reads.watching(game_id) as wait:
            events, last = events_after(game_id, token, after, reads)
            left = deadline - time.monotonic()
            if events or left <= 0:
                return events, last
            wait(left)


@dataclass(frozen=True)
class GameSummary:
    game_id: str
    status: str
    preset: str
    version: int
    created_at: datetime
    seats: tuple[Seat, ...]


def list_games(status: str | None, limit: int, cursor: str | None,
               uow: UnitOfWork) -> tuple[list[GameSummary], str | None]:
    """A page of games, newest first, and the cursor of the next page (None: last page)."""
    if status not in (None, "active", "over"):
        raise BadRequest("status is 'active' or 'over'")
    with uow:
        rows = uow.games.page(status, limit + 1, _decode_cursor(cursor))
        games = [GameSummary(r.id, r.status, r.preset, r.version, r.created_at,
                             tuple(Seat(x.seat, x.kind, x.engine) for x in r.seats))
                 for r in rows[:limit]]
    more = len(rows) > limit
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
        raise BadRequest("this cursor was not issued by this service") from None


def round_events(game_id: str, token: str | None, round_no: int,
                 reads: Reads) -> list[EventView]:
    """A round's replay: its events from its start to its end, as the caller may see them."""
    events, _ = events_after(game_id, token, 0, reads, limit=1_000_000)
    current, picked = 0, []
    for e in events:
        if isinstance(e.event, RoundStarted):
            current = e.event.round_no
        if current == round_no:
            picked.append(e)
    if not picked:
        raise GameNotFound(f"round {round_no} has not been played in game {game_id!r}")
    return picked


def rebuilt_state(game_id: str, uow: UnitOfWork) -> tuple[State, State]:
    """(the stored snapshot, the state rebuilt from seed + action log up to the
    snapshot's version): equal when sound. The snapshot is read and decoded here, never
    taken from a process's cache."""
    with uow:
        game = _load(uow, game_id)
        stored = _found(uow.games.stored_state(game_id), game_id)
        return stored.state, _replay_log(uow, game, stored.version)


def _replay_log(uow: UnitOfWork, game: Game, version: int | None = None) -> State:
    """The state rebuilt from the game's seed and its first ``version`` stored actions
    (by default the game's version as read: a move committed since is left out)."""
    rows = uow.games.actions(game.id)[:game.version if version is None else version]
    return replay(game.state.rules, game.state.seed, [parse_action(r.action) for r in rows])


def check_all(uow_factory: Callable[[], UnitOfWork]) -> tuple[int, list[str]]:
    """Rebuild every game from its seed and action log: (games checked, the ids whose
    stored snapshot differs from the rebuilt state)."""
    with uow_factory() as uow:
        ids = uow.games.ids()
    broken = []
    for game_id in ids:
        snapshot, rebuilt = rebuilt_state(game_id, uow_factory())
        if snapshot != rebuilt:
            broken.append(game_id)
    return len(ids), broken


def apply_and_save(uow: UnitOfWork, game: Game, action: Action, seat: int,
                   idempotency_key: str | None = None, note: PlayedFor | None = None) -> None:
    """Play ``action`` for ``seat`` and commit, if the game is still at the version read
    (else ``StaleVersion``); ``note`` is recorded just before the play's events."""
    read_version = game.version
    state, played = apply(game.state, action, seat)  # engine errors: nothing changes
    events = played if note is None else [note, *played]
    entries = state.entries_after(read_version)  # the one entry this action added
    game.state, game.version = state, read_version + len(entries)
    key = None if idempotency_key is None else (seat, idempotency_key, str(action))
    try:
        uow.games.save_actions(game, read_version, entries, events, key)
        uow.commit()
    except VersionConflict as exc:
        uow.rollback()
        raise StaleVersion(str(exc)) from None


def schedule_next(game: Game, scheduler: TurnScheduler) -> None:
    """Tell the scheduler whose turn it is, after a commit (a lost message is recovered
    by the sweeper: ``services.turns.sweep``)."""
    seat = game.seat_to_act
    if seat is None:
        return
    if seat.kind == "ai" and seat.engine is not None:
        scheduler.ai_turn(game.id, seat.seat, game.version, seat.engine, game.pace_ms / 1000)
    elif seat.kind == "human" and game.turn_timeout_ms is not None:
        scheduler.human_turn(game.id, seat.seat, game.version, game.turn_timeout_ms / 1000)


def _load(uow: UnitOfWork, game_id: str, at_least: int = 0) -> Game:
    return _found(uow.games.get(game_id, at_least), game_id)


def _found(found: T | None, game_id: str) -> T:
    if found is None:
        raise GameNotFound(f"no game {game_id!r}")
    return found


def _seat_of(game: Game, token: str) -> Seat:
    seat = game.seat_of(token)
    if seat is None:
        raise BadToken("this token opens no seat of this game")
    return seat

