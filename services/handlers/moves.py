"""A seat's action: checked by the engine, written on condition of the version read.

A move goes entry point → here → engine → store, inside one transaction whose write is
conditional on the version read: of two concurrent moves exactly one applies, the other
gets ``StaleVersion``. Whose turn it is next is written in the same transaction, to the
outbox (``followups.turn_message``), which a relay hands to the ``TurnScheduler``
(``handlers.outbox``): no crash between the commit and the hand-off loses a turn.
"""

from __future__ import annotations

from dataclasses import replace

from config import tracing
from engine import apply, parse_action
from engine.errors import PresidentError
from engine.plays import Action
from services.commands import Act
from services.domain import ANONYMOUS, Caller, Game, PlayedFor
from services.errors import KeyReused, NotStarted, StaleVersion
from services.handlers.common import load, replay_log, seat_of
from services.handlers.followups import follow_ups
from services.ports import UnitOfWork, VersionConflict
from services.views import GameView


def act(cmd: Act, uow: UnitOfWork, caller: Caller = ANONYMOUS) -> GameView:
    action = parse_action(cmd.action)  # InvalidAction for unknown or duplicate cards
    with uow:
        played = (_played_as_known(uow, cmd, action)
                  or _played_after_reading(uow, cmd, action, caller))
    if isinstance(played, GameView):  # the first result of a retried request
        return played
    game, seat = played
    return GameView.of(game, seat)


def _played_after_reading(uow: UnitOfWork, cmd: Act, action: Action,
                          caller: Caller) -> tuple[Game, int] | GameView:
    """The ordinary path: read the game, check the token, the Idempotency-Key and the
    version, play. (game, seat) once played; the earlier result for a known key."""
    game = load(uow, cmd.game_id, at_least=cmd.version, token=cmd.token)
    seat = seat_of(game, cmd.token, caller).seat  # only human seats have tokens
    first = _first_result(uow, game, seat, cmd)
    if first is not None:
        return first
    if cmd.version != game.version:
        raise StaleVersion(f"the game is at version {game.version}, not {cmd.version}")
    try:
        apply_and_save(uow, game, action, seat, cmd.idempotency_key,
                       trace=tracing.traceparent())
    except StaleVersion:  # a concurrent retry of the same request may have won
        first = _first_result(uow, game, seat, cmd)
        if first is None:
            raise
        return first
    return game, seat


def _played_as_known(uow: UnitOfWork, cmd: Act, action: Action) -> tuple[Game, int] | None:
    """Play on this process's own state of the game at the client's version, without
    reading the game first: the write is conditional on that version (and the seats held
    here) anyway. Anything else (an unknown state, a bad token, an action the engine
    refuses, an Idempotency-Key, a write that finds the game changed) is left to the
    ordinary path, which reads the game and says what is wrong."""
    if cmd.idempotency_key is not None:
        return None
    game = uow.games.known(cmd.game_id, cmd.version)
    seat = None if game is None else game.seat_of(cmd.token)
    if game is None or seat is None:
        return None
    try:
        apply_and_save(uow, game, action, seat.seat, trace=tracing.traceparent())
    except (PresidentError, StaleVersion):  # (stale: perhaps only its seats, held here)
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
    if version != cmd.version + 1:  # (each action adds one entry to the log)
        raise KeyReused(f"this Idempotency-Key was sent before at version {version - 1}, "
                        f"not {cmd.version}")
    then = replace(game, state=replay_log(uow, game, version), version=version)
    return GameView.of(then, seat)


def apply_and_save(uow: UnitOfWork, game: Game, action: Action, seat: int,
                   idempotency_key: str | None = None, note: PlayedFor | None = None,
                   trace: str | None = None) -> None:
    """Play ``action`` for ``seat`` and commit, with the next turn's message, if the game
    is still at the version read (else ``StaleVersion``); ``note`` is recorded just before
    the play's events; ``trace``: the traceparent the next turn goes on with."""
    if game.status in ("waiting", "cancelled"):
        raise NotStarted(f"the game is {game.status}: nobody plays yet")
    read_version = game.version
    state, played = apply(game.state, action, seat)  # engine errors: nothing changes
    events = played if note is None else [note, *played]
    entries = state.entries_after(read_version)  # the one entry this action added
    game.state, game.version = state, read_version + len(entries)
    key = None if idempotency_key is None else (seat, idempotency_key, str(action))
    try:
        then = follow_ups(game, events, game.events, trace=trace)
        uow.games.save_actions(game, read_version, entries, events, key, then.message,
                               then.hooks)
        uow.commit()
    except VersionConflict as exc:
        uow.rollback()
        raise StaleVersion(str(exc)) from None
