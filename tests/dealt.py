"""Games made from a known deal that others sit at: the seed goes through ``create_game``'s
``draw`` (the tests' seam), since a seed sent where others sit is refused."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from services.commands import CreateGame
from services.handlers.games import create_game
from services.views import CreatedGame


def create_dealt(cmd: CreateGame, *args: Any, **kwargs: Any) -> CreatedGame:
    """``create_game`` of ``cmd``, dealt from ``cmd.seed`` as if the service drew it."""
    seed = cmd.seed
    if seed is None:
        return create_game(cmd, *args, **kwargs)
    return create_game(replace(cmd, seed=None), *args, draw=lambda: seed, **kwargs)
