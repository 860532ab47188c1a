"""Hints: what an AI level would play now from a seat's view, asked by that seat
(docs/api.md#hints). Synchronous: the API asks the level directly (a gRPC AI worker,
with the budget and a margin as deadline), never through the queue. The level sees the
seat's view only, as an AI seat does; nothing is recorded as a move. The thinking time
counts against the game's owner, as its AI seats' does."""

from __future__ import annotations

import time
from typing import Callable

from engine import NotYourTurn, observe
from services.domain import ANONYMOUS, Caller, Hint
from services.errors import BadLevel, HintsForbidden, NotActive, NotStarted
from services.handlers.common import read, seat_of
from services.handlers.turns import charge_ai_time, refuse_past_quota
from services.ports import Adviser, Reads, UnitOfWork

HINT_LEVELS = ("easy", "normal", "hard", "expert")  # (bots give no hints)
# The levels that search, for their time: what a hint of theirs counts against the
# owner's AI time. Easy and Normal answer in microseconds, which the quota (seconds an
# hour) would not see: their hints skip its two database round trips.
SEARCHING = ("hard", "expert")


def hint(game_id: str, token: str, level: str, budget_ms: float | None,
         seed: int | None, reads: Reads, uow_factory: Callable[[], UnitOfWork],
         adviser: Adviser, clock: Callable[[], float] = time.monotonic,
         caller: Caller = ANONYMOUS) -> Hint:
    """``level``'s choice for the token's seat, to act now; ``seed`` (default: the
    game's version) fixes a searching level's randomness."""
    if level not in HINT_LEVELS:
        raise BadLevel(f"hints come from a level among {', '.join(HINT_LEVELS)}")
    game = read(reads, game_id, token=token)
    seat = seat_of(game, token, caller).seat
    if not game.table.hints:
        raise HintsForbidden("this game was made without hints")
    if game.status == "waiting":
        raise NotStarted("the game waits for players: nobody plays yet")
    if game.status != "active":
        raise NotActive(f"the game is {game.status}")
    view = observe(game.state, seat)
    if not view.legal_actions:
        raise NotYourTurn(f"seat {view.to_act} is to act, not seat {seat}")
    counted = level in SEARCHING
    if counted:
        with uow_factory() as uow:
            refuse_past_quota(uow, game)
    started = clock()
    answer = adviser.advise(view, level, game.version if seed is None else seed, budget_ms)
    if counted and game.owner is not None:
        thought = answer.thought_s if answer.thought_s is not None else clock() - started
        with uow_factory() as uow:
            charge_ai_time(uow, game.owner, thought)
            uow.commit()
    return answer
