"""Presence: which human seats are connected, across every API process (docs/lobby.md).

A seat is connected while its human is heard from: a request with its token, or an open
event stream or long poll, within ``WINDOW_S``. Each process writes when it last heard
from a seat (at most every ``TOUCH_EVERY_S`` a seat), in the database, where the others
see it; a seat coming or going is a seat change (``seat_connected``,
``seat_disconnected``), written like a join. The sweeper finds the seats gone quiet.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from services.domain import TableEvent, hash_token
from services.handlers.common import found
from services.handlers.tables import retried
from services.ports import UnitOfWork
from services.versioned import VersionedCache
from services.views import GameView

WINDOW_S = 30.0  # heard from this recently: connected
TOUCH_EVERY_S = 10.0  # a process writes that it heard from a seat this often at most


class Presence:
    """What this process last wrote of each seat it heard from (so that a seat's many
    requests write once every ``TOUCH_EVERY_S``), for as many seats as ``size``."""

    def __init__(self, uow_factory: Callable[[], UnitOfWork], size: int = 100_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._uow = uow_factory
        self._told: VersionedCache[tuple[str, str], float] = VersionedCache(size)
        self._clock = clock

    def heard(self, game_id: str, token: str, seen: Callable[[], GameView]) -> bool:
        """The human of the seat ``token`` opens was heard from just now; ``seen()``
        gives the game as that seat sees it (read only when this process writes).
        Whether the seat was not connected before (its coming is written)."""
        key, now = (game_id, hash_token(token)), self._clock()
        told = self._told.get(key)
        if told is not None and now - told < TOUCH_EVERY_S:
            return False
        self._told.put(key, now)
        view = seen()
        if (view.seat is None or view.seats[view.seat].kind != "human"
                or view.status in ("over", "cancelled")):
            return False
        with self._uow() as uow:
            uow.lobby.touch(game_id, view.seat)
            uow.commit()
        if view.seats[view.seat].connected:
            return False
        _mark(self._uow(), game_id, view.seat, True)
        return True


def expire(uow_factory: Callable[[], UnitOfWork], after_s: float = WINDOW_S) -> int:
    """The seats not heard from for ``after_s`` are disconnected; how many."""
    with uow_factory() as uow:
        quiet = uow.lobby.gone_quiet(after_s)
    for game_id, seat in quiet:
        _mark(uow_factory(), game_id, seat, False)
    return len(quiet)


def _mark(uow: UnitOfWork, game_id: str, seat: int, connected: bool) -> None:
    def change() -> None:
        with uow:
            game = found(uow.games.fresh(game_id), game_id)
            held = game.seats[seat]
            if held.connected == connected or held.kind != "human":
                return
            read_version, read_seated = game.version, game.seated
            game.seats = tuple(replace(s, connected=connected) if s.seat == seat else s
                               for s in game.seats)
            uow.games.reseat(game, read_version, read_seated, [TableEvent(
                "seat_connected" if connected else "seat_disconnected", seat)])
            uow.commit()

    retried(change)
