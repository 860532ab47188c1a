"""A ``TurnScheduler`` for tests: it plays nothing and writes down what it is told."""

from __future__ import annotations

from typing import Any


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, expires_s: float | None = None) -> None:
        self.calls.append(("ai", game_id, seat, version, engine, delay_s))

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float) -> None:
        self.calls.append(("human", game_id, seat, version, timeout_s))
