"""The synchronous, in-process turn scheduler: AI seats play at once, in the caller's
thread. Used by tests and by ``president api --inline-ai``; the Celery + gRPC
scheduler implements the same port for production."""

from __future__ import annotations

from typing import Callable

from engine import View
from engine.plays import Action
from services.handlers import play_ai_turn
from services.store.uow import UnitOfWork
from workers.ai import decide as ai_decide


def decide_in_process(view: View, engine: str) -> Action:
    return ai_decide(view, engine, seed=len(view.history))


class InlineScheduler:
    def __init__(self, uow_factory: Callable[[], UnitOfWork],
                 decide: Callable[[View, str], Action] = decide_in_process) -> None:
        self._uow_factory = uow_factory
        self._decide = decide

    def ai_turn(self, game_id: str, seat: int, version: int) -> None:
        """Play AI seats one after the other until a human is to act or the game ends."""
        while True:
            game = play_ai_turn(game_id, seat, version, self._uow_factory(), self._decide)
            if game is None or game.state.to_act < 0:
                return
            seat, version = game.state.to_act, game.version
            if game.seats[seat].kind != "ai":
                return
