"""A game's events as a reader may see them: pages, long polls, a round's replay."""

from __future__ import annotations

import time
from typing import Callable

from engine import Event, RoundStarted, redact
from services.domain import ANONYMOUS, LARGEST_NUMBER, SERVICE_EVENTS, Caller, ServiceEvent
from services.errors import RoundNotFound
from services.handlers.common import found, read, viewer
from services.ports import Reads
from services.views import EventView


def events_after(game_id: str, token: str | None, after: int, reads: Reads,
                 limit: int = 500, caller: Caller = ANONYMOUS) -> tuple[list[EventView], int]:
    """The game's events numbered above ``after`` as the token's seat (or a spectator) may
    see them, and the number of the game's last event."""
    game = read(reads, game_id, token=token)
    seat = viewer(game, token, caller)
    rows = reads.events_after(game_id, after, limit)
    last = max(game.events, rows[-1][0] if rows else 0)  # (the state may not be the newest)
    return [_seen(seq, version, event, seat) for seq, version, event in rows], last


GIVE_UP_CHECK_S = 1.0  # how often a wait asks ``give_up``


def wait_for_events(game_id: str, token: str | None, after: int, wait_s: float,
                    reads: Reads, caller: Caller = ANONYMOUS,
                    give_up: Callable[[], bool] = lambda: False
                    ) -> tuple[list[EventView], int]:
    """``events_after``, waiting up to ``wait_s`` seconds for one if there is none yet
    (long polling): woken by the next move of the game, and answering what it has as
    soon as ``give_up()`` (the process is stopping)."""
    deadline = time.monotonic() + wait_s
    while True:
        with reads.watching(game_id) as wait:
            events, last = events_after(game_id, token, after, reads, caller=caller)
            left = deadline - time.monotonic()
            if events or left <= 0 or give_up():
                return events, last
            wait(min(left, GIVE_UP_CHECK_S))


def series_over(game_id: str, reads: Reads) -> bool:
    """Is the series over (no event will follow its last)?"""
    return found(reads.get(game_id), game_id).status == "over"


def round_events(game_id: str, token: str | None, round_no: int, reads: Reads,
                 caller: Caller = ANONYMOUS) -> list[EventView]:
    """A round's replay: its events from its start to its end, as the caller may see them.
    Only that round's events are read (the game's whole list for games stored before the
    events said their round)."""
    game = read(reads, game_id, token=token)
    seat = viewer(game, token, caller)
    if round_no > LARGEST_NUMBER:  # (past what is stored: none such, not a database error)
        raise RoundNotFound(f"round {round_no} has not been played in game {game_id!r}")
    rows = reads.events_of_round(game_id, round_no)
    if rows:
        return [_seen(seq, version, event, seat) for seq, version, event in rows]
    events, _ = events_after(game_id, token, 0, reads, limit=1_000_000, caller=caller)
    current, picked = 0, []
    for e in events:
        if isinstance(e.event, RoundStarted):
            current = e.event.round_no
        if current == round_no:
            picked.append(e)
    if not picked:
        raise RoundNotFound(f"round {round_no} has not been played in game {game_id!r}")
    return picked


def _seen(seq: int, version: int, event: Event | ServiceEvent, seat: int | None) -> EventView:
    """The event as ``seat`` (None: a spectator) may see it."""
    seen = event if isinstance(event, SERVICE_EVENTS) else redact(event, seat)
    return EventView(seq, version, seen)
