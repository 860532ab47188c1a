"""The synchronous, in-process turn scheduler: AI seats play at once, in the committing
thread. For tests and experiments; the Celery scheduler (``workers.turns``) implements the
same port for production, and the background runner (``services.runtime.background``) serves a
laptop with no broker.

It has no timer: pacing is ignored and human turn timeouts need the Celery scheduler.
Wired after each commit as ``relay.drain(); scheduler.play_queued()``: the relay hands it
the turns (queued, as the relay's transaction is still open), then they are played."""

from __future__ import annotations

import threading
from typing import Callable

from services.commands import Turn
from services.handlers.turns import take_ai_turn
from services.ports import Decide, Fallback, UnitOfWork


class InlineScheduler:
    def __init__(self, uow_factory: Callable[[], UnitOfWork], decide: Decide,
                 fallback: Fallback) -> None:
        self._uow_factory = uow_factory
        self._decide, self._fallback = decide, fallback
        self._local = threading.local()

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, resent: bool = False) -> None:
        self._queue().append(Turn(game_id, seat, version))

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float,
                   resent: bool = False) -> None:
        pass  # no timer in process: time limits are the Celery scheduler's

    def play_queued(self) -> None:
        """Play AI seats one after the other until a human is to act or the game ends.

        Each turn played queues the next one (through the outbox): the outermost call
        plays them all, so an all-AI series does not recurse once per move."""
        if getattr(self._local, "playing", False):
            return
        self._local.playing = True
        try:
            queue = self._queue()
            while queue:
                take_ai_turn(queue.pop(0), self._uow_factory(), self._decide, self._fallback)
        finally:
            self._local.playing = False

    def _queue(self) -> list[Turn]:
        if not hasattr(self._local, "queue"):
            self._local.queue = []
        queue: list[Turn] = self._local.queue
        return queue
