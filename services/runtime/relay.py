"""A process's outbox relay: a thread that hands over what committed moves wrote to the
outbox (``handlers.outbox.relay``) whenever its ``OutboxWake`` says there may be some:
woken by the commit, and at least every ``IDLE_S`` as a safety net.

It runs in every process that writes moves (API workers, Celery worker processes);
which of them relay is the wake's business (``services.store.outbox``: one leader on
PostgreSQL). ``drain`` may also be called directly, synchronously, after each commit
(tests and the inline scheduler do).
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from services.handlers.outbox import BATCH, relay, relay_ratings, relay_webhooks
from services.ports import Nudge, OutboxWake, TurnScheduler, UnitOfWork, WebhookQueue

log = logging.getLogger(__name__)

IDLE_S = 1.0  # the longest a leading relay waits without looking
RETRY_S = (0.1, 0.2, 0.5, 1.0)  # pauses after failed hand-overs (the broker is down)


class Relay:
    def __init__(self, uow_factory: Callable[[], UnitOfWork], scheduler: TurnScheduler,
                 wake: OutboxWake | None = None,
                 webhooks: tuple[WebhookQueue, float] | None = None,
                 ratings: Nudge | None = None) -> None:
        """Without ``wake``, no thread: ``drain`` is called after each commit.
        ``webhooks``: where webhook messages go, and how long one handed over waits
        for its attempt to start (None: they stay in their table)."""
        self._uow_factory = uow_factory
        self._scheduler = scheduler
        self._wake = wake
        self._webhooks = webhooks
        self._ratings = ratings  # where the rater is sent (None: rounds are not rated)
        self._stopped = threading.Event()
        self._failures = 0
        self._thread: threading.Thread | None = None

    def poke(self) -> None:
        """After a commit that wrote to the outbox."""
        if self._wake is not None:
            self._wake.poke()

    def start(self) -> Relay:
        assert self._wake is not None, "a relay's thread waits on its wake"
        self._thread = threading.Thread(target=self._run, name="president-outbox-relay",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 5.0) -> None:
        self._stopped.set()
        if self._wake is not None:
            self._wake.close()
        if self._thread is not None:
            self._thread.join(timeout_s)

    def drain(self) -> int:
        """Hand over everything waiting; how many. A failure is logged and retried
        later: the messages stay in the outbox."""
        total = 0
        while not self._stopped.is_set():
            try:
                turns = relay(self._uow_factory(), self._scheduler)
                hooks = 0
                if self._webhooks is not None:
                    queue, wait_s = self._webhooks
                    hooks = relay_webhooks(self._uow_factory(), queue, wait_s)
                if self._ratings is not None:
                    relay_ratings(self._uow_factory(), self._ratings)
            except Exception:  # noqa: BLE001 - the broker or database is down: later
                log.exception("outbox relay: could not hand over; trying again")
                self._stopped.wait(RETRY_S[min(self._failures, len(RETRY_S) - 1)])
                self._failures += 1
                return total
            self._failures = 0
            total += turns + hooks
            if max(turns, hooks) < BATCH:
                return total
        return total

    def _run(self) -> None:
        assert self._wake is not None
        while not self._stopped.is_set():
            if self._wake.wait(IDLE_S):
                self.drain()
