"""The outbox's relay: hands the turns committed moves wrote to the ``TurnScheduler``,
their webhook messages, when due, to the ``WebhookQueue``, and sends the rater when
rounds wait to be rated.

A move writes its next turn's message in its own transaction (``followups.turn_message``);
a relay, woken by the commit, claims the oldest messages, hands each over and deletes
those handed over, in one transaction. A crash before that commit leaves them to be
claimed again (a message handed over twice plays nothing twice: every turn checks the
game's version); a scheduler that fails (the broker is down) leaves them where they are.
"""

from __future__ import annotations

import logging
from typing import Callable, Sequence, TypeVar

from config import tracing
from services.domain import TurnMessage
from services.ports import Nudge, TurnScheduler, UnitOfWork, WebhookQueue

log = logging.getLogger(__name__)

BATCH = 100  # messages claimed at a time
T = TypeVar("T")


def relay(uow: UnitOfWork, scheduler: TurnScheduler, limit: int = BATCH) -> int:
    """Hand over up to ``limit`` messages; how many were handed over. Raises what the
    scheduler raised once the messages it could not take are put back."""
    with uow:
        return _handed(uow, uow.outbox.claim(limit), lambda m: hand_over(m, scheduler),
                       uow.outbox.put_back)


def _handed(uow: UnitOfWork, claimed: Sequence[T], hand: Callable[[T], object],
            put_back: Callable[[Sequence[T]], object]) -> int:
    """Hand each claimed message over, and commit; the first that fails is put back
    with those after it, committed too, and its error raised."""
    for done, message in enumerate(claimed):
        try:
            hand(message)
        except Exception:
            put_back(claimed[done:])
            uow.commit()
            raise
    uow.commit()
    return len(claimed)


def hand_over(message: TurnMessage, scheduler: TurnScheduler) -> None:
    """Within the trace of the move that wrote the message, if it carries one: the
    queue's publish, and the task after it, join that trace."""
    with tracing.continued(message.trace):
        if message.engine is not None:
            scheduler.ai_turn(message.game_id, message.seat, message.version, message.engine,
                              message.delay_s, message.resent)
        else:
            scheduler.human_turn(message.game_id, message.seat, message.version,
                                 message.delay_s, message.resent)


def relay_webhooks(uow: UnitOfWork, queue: WebhookQueue, wait_s: float,
                   limit: int = BATCH) -> int:
    """Hand over up to ``limit`` webhook messages that are due (new ones, retries, and
    those whose task was lost); how many. Each is claimed with a new hand, which only
    the task handed it may attempt, and is due again after ``wait_s`` unless its attempt
    starts; one not handed over is due again at once."""
    with uow:
        return _handed(uow, uow.webhooks.claim_due(limit, wait_s),
                       lambda claimed: queue.deliver(*claimed), uow.webhooks.put_back)


def relay_ratings(uow: UnitOfWork, rater: Nudge) -> int:
    """Send the rater if rounds wait to be rated (it rates them all, oldest first; a
    rater sent twice finds nothing the second time); 1 if sent."""
    with uow:
        waiting = uow.ratings.pending()
    if waiting:
        rater.poke()
    return int(waiting)
