"""Checking stored games against their logs: a snapshot must equal seed + actions."""

from __future__ import annotations

from typing import Callable

from engine import State
from services.handlers.common import found, load, replay_log
from services.ports import UnitOfWork


def rebuilt_state(game_id: str, uow: UnitOfWork) -> tuple[State, State]:
    """(the stored snapshot, the state rebuilt from seed + action log up to the
    snapshot's version): equal when sound. The snapshot is read and decoded here, never
    taken from a process's cache."""
    with uow:
        game = load(uow, game_id)
        version, stored = found(uow.games.stored_state(game_id), game_id)
        return stored, replay_log(uow, game, version)


def check_all(uow_factory: Callable[[], UnitOfWork]) -> tuple[int, list[str]]:
    """Rebuild every game from its seed and action log: (games checked, the ids whose
    stored snapshot differs from the rebuilt state)."""
    with uow_factory() as uow:
        ids = uow.listing.ids()
    broken = []
    for game_id in ids:
        snapshot, rebuilt = rebuilt_state(game_id, uow_factory())
        if snapshot != rebuilt:
            broken.append(game_id)
    return len(ids), broken
