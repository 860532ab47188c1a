"""The synchronous, in-process turn scheduler: AI seats play at once, in the caller's
thread. The default when no broker is configured (tests, a laptop); the Celery scheduler
(``workers.turns``) implements the same port for production.

It has no timer: pacing is ignored and human turn timeouts need the Celery scheduler."""

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
                delay_s: float = 0.0, expires_s: float | None = None) -> None:
        """Play AI seats one after the other until a human is to act or the game ends.

        Each turn played tells this scheduler of the next one: those are queued and
        played by the outermost call, so an all-AI series does not recurse once per move."""
        queue: list[Turn] | None = getattr(self._local, "queue", None)
        if queue is not None:
            queue.append(Turn(game_id, seat, version))
            return
        self._local.queue = queue = [Turn(game_id, seat, version)]
        try:
            while queue:
                take_ai_turn(queue.pop(0), self._uow_factory(), self, self._decide,
                             self._fallback)
        finally:
            self._local.queue = None

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float) -> None:
        pass  # no timer in process: time limits are the Celery scheduler's
