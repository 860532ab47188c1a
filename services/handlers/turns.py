"""Turns the service plays itself: AI seats, substitutes, and the sweeper.

Each function is told of a turn (``Turn``: game, seat, the version it expects) and does
nothing when the game has moved on: a duplicate, redelivered or late message is a no-op,
so no move is ever played twice. Every action still goes through the engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable

from engine import PASS, observe
from engine.plays import Action
from services.commands import Turn
from services.domain import Game, PlayedFor
from services.errors import StaleVersion
from services.handlers.moves import apply_and_save, schedule_next
from services.ports import Decide, Fallback, TurnScheduler, UnitOfWork


def take_ai_turn(turn: Turn, uow: UnitOfWork, scheduler: TurnScheduler, decide: Decide,
                 fallback: Fallback, clock: Callable[[], float] = time.monotonic
                 ) -> Game | None:
    """Ask the seat's engine for its action and play it; None if the turn is gone. The
    time it thought counts against the game's owner (its AI quota); once the owner has
    used the game's allowance for the hour, ``fallback`` plays instead (no thinking time
    to speak of), recorded as played for the seat (``ai_quota``).

    ``decide`` runs outside any transaction (an Expert thinks for half a second) and may
    raise (an adapter's error): nothing is written then, the caller retries."""
    with uow:
        game = _waiting_on(uow, turn, "ai")
        if game is None or game.seat_to_act is None or game.seat_to_act.engine is None:
            return None
        spent = _allowance_spent(uow, game)
    if spent:
        return _play(uow, game, turn.seat, fallback.decide(observe(game.state, turn.seat)),
                     scheduler, PlayedFor(turn.seat, "ai_quota", fallback.name))
    started = clock()
    action = decide(observe(game.state, turn.seat), game.seat_to_act.engine)
    thought = clock() - started
    played = _play(uow, game, turn.seat, action, scheduler)
    if played is not None and game.owner is not None:
        with uow:
            uow.games.add_ai_time(game.owner, hour_of(datetime.now(timezone.utc)), thought)
            uow.commit()
    return played


def hour_of(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def ai_time_used(uow: UnitOfWork, owner: str, now: datetime | None = None) -> float:
    """The AI thinking time ``owner``'s games used in the last hour, as the quota counts
    it: the hour under way and the one before."""
    since = hour_of(now or datetime.now(timezone.utc)) - timedelta(hours=1)
    return uow.games.ai_time_since(owner, since)


def _allowance_spent(uow: UnitOfWork, game: Game) -> bool:
    return (game.owner is not None and game.ai_seconds_per_hour is not None
            and ai_time_used(uow, game.owner) >= game.ai_seconds_per_hour)


def play_instead(turn: Turn, reason: str, uow: UnitOfWork, scheduler: TurnScheduler,
                 fallback: Fallback, now: datetime | None = None) -> Game | None:
    """The service plays the seat itself, recorded as a ``PlayedFor`` event:
    - ``ai_failed``: the AI seat's engine kept failing; ``fallback`` (the Easy level, in
      process) plays, and is named in the event;
    - ``turn_timeout``: the human seat's time ran out; it passes where passing is legal,
      else ``fallback`` plays. Nothing happens before the time is really out."""
    kind = "human" if reason == "turn_timeout" else "ai"
    with uow:
        game = _waiting_on(uow, turn, kind)
        deadline = uow.games.turn_deadline(turn.game_id)
    if game is None or (kind == "human" and not _past(deadline, now)):
        return None
    view = observe(game.state, turn.seat)
    action: Action  # PASS is a Play; the Easy level may also give cards back
    if kind == "human" and PASS in view.legal_actions:
        action, policy = PASS, "pass"
    else:
        action, policy = fallback.decide(view), fallback.name
    return _play(uow, game, turn.seat, action, scheduler, PlayedFor(turn.seat, reason, policy))


@dataclass(frozen=True)
class Sweep:
    ai_turns: int  # AI turns sent again
    timeouts: int  # human turns past their time limit, sent to be played


def sweep(uow: UnitOfWork, scheduler: TurnScheduler, ai_after_s: float,
          now: datetime | None = None) -> Sweep:
    """Send again every AI turn waited on for more than ``ai_after_s`` (its message was
    lost, or its worker died), and every human turn past its game's time limit."""
    now = now or datetime.now(timezone.utc)
    with uow:
        stalled = uow.games.waiting("ai", now - timedelta(seconds=ai_after_s))
        overdue = uow.games.overdue_humans(now)
    for w in stalled:
        if w.engine is not None:  # a copy still queued at the next sweep is dropped
            scheduler.ai_turn(w.game_id, w.seat, w.version, w.engine, expires_s=ai_after_s)
    for w in overdue:
        scheduler.human_turn(w.game_id, w.seat, w.version, 0.0)
    return Sweep(len(stalled), len(overdue))


def _waiting_on(uow: UnitOfWork, turn: Turn, kind: str) -> Game | None:
    """The game, if it still waits on ``turn``'s seat of that kind at that version."""
    game = uow.games.get(turn.game_id, at_least=turn.version)  # made by another process
    if game is None or game.version != turn.version or game.state.to_act != turn.seat:
        return None
    return game if game.seats[turn.seat].kind == kind else None


def _past(deadline: datetime | None, now: datetime | None) -> bool:
    return deadline is not None and (now or datetime.now(timezone.utc)) >= deadline


def _play(uow: UnitOfWork, game: Game, seat: int, action: Action, scheduler: TurnScheduler,
          note: PlayedFor | None = None) -> Game | None:
    try:
        with uow:
            apply_and_save(uow, game, action, seat, note=note)
    except StaleVersion:  # someone else played this turn meanwhile: theirs stands
        return None
    schedule_next(game, scheduler)
    return game
