"""Turns the service plays itself: AI seats, substitutes, and the sweeper.

Each function is told of a turn (``Turn``: game, seat, the version it expects) and does
nothing when the game has moved on: a duplicate, redelivered or late message is a no-op,
so no move is ever played twice. Every action still goes through the engine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

from engine import PASS, CardsGiven, Passed, Played, observe
from engine.plays import Action
from services.commands import Turn
from services.domain import Game, PlayedFor, Waiting
from services.errors import QuotaExceeded, StaleVersion
from services.handlers.moves import apply_and_save
from services.handlers.quotas import ai_time_used, hour_of
from services.handlers.tables import take_over
from services.ports import Decide, Fallback, UnitOfWork, VersionConflict


def take_ai_turn(turn: Turn, uow: UnitOfWork, decide: Decide, fallback: Fallback,
                 clock: Callable[[], float] = time.monotonic
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
                     PlayedFor(turn.seat, "ai_quota", fallback.name))
    started = clock()
    action = decide(observe(game.state, turn.seat), game.seat_to_act.engine)
    thought = clock() - started
    played = _play(uow, game, turn.seat, action)
    if played is not None and game.owner is not None:
        with uow:
            charge_ai_time(uow, game.owner, thought)
            uow.commit()
    return played


def charge_ai_time(uow: UnitOfWork, owner: str, seconds: float) -> None:
    """(In ``uow``, uncommitted.) AI thinking for ``owner``'s games: its seats', hints,
    reviews."""
    uow.quotas.add_ai_time(owner, hour_of(datetime.now(timezone.utc)), seconds)


def refuse_past_quota(uow: UnitOfWork, game: Game) -> None:
    """QuotaExceeded once the game's owner has spent the AI time its quota allows."""
    if game.owner is None or game.ai_seconds_per_hour is None:
        return
    used = ai_time_used(uow, game.owner)
    if used >= game.ai_seconds_per_hour:
        raise QuotaExceeded(f"this game's owner used {used:.0f} s of AI thinking in the last "
                            f"hour, its quota is {game.ai_seconds_per_hour} s")


def _allowance_spent(uow: UnitOfWork, game: Game) -> bool:
    return (game.owner is not None and game.ai_seconds_per_hour is not None
            and ai_time_used(uow, game.owner) >= game.ai_seconds_per_hour)


def play_instead(turn: Turn, reason: str, uow: UnitOfWork, fallback: Fallback,
                 take_over_after: int = 0) -> Game | None:
    """The service plays the seat itself, recorded as a ``PlayedFor`` event:
    - ``ai_failed``: the AI seat's engine kept failing; ``fallback`` (the Easy level, in
      process) plays, and is named in the event;
    - ``turn_timeout``: the human seat's time ran out; it passes where passing is legal,
      else ``fallback`` plays. Nothing happens before the time is really out, by the
      database's clock (the one the deadline was written with). The
      ``take_over_after``-th time in a row (0: never), the game's takeover level takes
      the seat over instead, for the rest of the series."""
    kind = "human" if reason == "turn_timeout" else "ai"
    with uow:
        game = _waiting_on(uow, turn, kind)
        if game is None or (kind == "human" and not uow.turns.out_of_time(turn.game_id)):
            return None
        if kind == "human" and 0 < take_over_after <= 1 + timed_out_in_a_row(
                uow, game, turn.seat):
            try:
                take_over(uow, game, turn.seat, "timeouts")
                uow.commit()
            except VersionConflict:  # the seat acted, or left, meanwhile
                return None
            return game
    view = observe(game.state, turn.seat)
    action: Action  # PASS is a Play; the Easy level may also give cards back
    if kind == "human" and PASS in view.legal_actions:
        action, policy = PASS, "pass"
    else:
        action, policy = fallback.decide(view), fallback.name
    return _play(uow, game, turn.seat, action, PlayedFor(turn.seat, reason, policy))


LOOK_BACK = 500  # events: a seat's time limits in a row, counted among the game's last


def timed_out_in_a_row(uow: UnitOfWork, game: Game, seat: int) -> int:
    """How many of ``seat``'s last turns in a row the service played because its time
    ran out (its plays, passes and gifts; a ``played_for`` comes just before its play)."""
    events = uow.games.events_after(game.id, max(0, game.events - LOOK_BACK), LOOK_BACK)
    streak, noted = 0, False
    for _, _, event in events:
        if isinstance(event, PlayedFor):
            noted = event.seat == seat and event.reason == "turn_timeout"
        elif _acted(event) == seat:
            streak, noted = streak + 1 if noted else 0, False
    return streak


def _acted(event: object) -> int | None:
    """The seat whose decision the event is, if it is one."""
    if isinstance(event, (Played, Passed)):
        return event.seat
    if isinstance(event, CardsGiven) and not event.automatic:
        return event.giver
    return None


@dataclass(frozen=True)
class Sweep:
    ai_turns: int  # AI turns sent again
    timeouts: int  # human turns past their time limit, sent to be played


def sweep(uow: UnitOfWork, after_s: float) -> Sweep:
    """The last resort, for a turn whose message was lost (a queue that lost its
    messages, a worker killed mid-turn): write to the outbox again every turn due more
    than ``after_s`` ago that still waits. ``after_s`` is longer than a message lives
    unstarted plus a started turn's thinking time, so no copy sent before can still be
    playing: a turn never has two live copies. Each one sent again is due now, so the
    next sweeps leave it alone for as long."""
    with uow:
        stalled = [w for w in uow.turns.stalled(after_s) if uow.turns.send_again(w)]
        uow.commit()
    ai_turns = sum(1 for w in stalled if w.engine is not None)
    return Sweep(ai_turns, len(stalled) - ai_turns)


def postpone(turn: Turn, uow: UnitOfWork, delay_s: float) -> bool:
    """The turn's task tries again in ``delay_s`` (its engine failed): the sweeper waits
    for that attempt before it sends the turn again, so the retry stays the one live
    copy. False if the game has moved on."""
    with uow:
        done = uow.turns.postpone(Waiting(turn.game_id, turn.version, turn.seat, None),
                                  delay_s)
        uow.commit()
    return done


def _waiting_on(uow: UnitOfWork, turn: Turn, kind: str) -> Game | None:
    """The game, if it still waits on ``turn``'s seat of that kind at that version."""
    game = uow.games.get(turn.game_id, at_least=turn.version)  # made by another process
    if game is None or game.version != turn.version or game.state.to_act != turn.seat:
        return None
    return game if game.seats[turn.seat].kind == kind else None


SEAT_CHANGES_AT_MOST = 5  # a turn played again after its game's seats changed


def _play(uow: UnitOfWork, game: Game, seat: int, action: Action,
          note: PlayedFor | None = None) -> Game | None:
    """Play, unless someone else played this turn meanwhile (theirs stands); if only the
    game's seats changed (a seat came, went, was taken over), on the game read again."""
    for _ in range(SEAT_CHANGES_AT_MOST):
        version, kind = game.version, game.seats[seat].kind
        try:
            with uow:
                apply_and_save(uow, game, action, seat, note=note)
            return game
        except StaleVersion:
            with uow:
                fresh = uow.games.fresh(game.id)
            if (fresh is None or fresh.version != version or fresh.seat_to_act is None
                    or fresh.seat_to_act.seat != seat or fresh.seats[seat].kind != kind):
                return None
            game = fresh
    return None
