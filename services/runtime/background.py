"""The turn scheduler when no broker is configured: AI seats play in this process, after
the request that made their turn has answered, on a thread of the scheduler's own (a
greenlet under gunicorn's gevent workers). A create or a move answers at once whatever
the seats; the series goes on behind it.

Turns are taken one at a time, in order. A turn whose engine fails is played by the
fallback, as the Celery pipeline does after its retries. A process that starts picks up
the AI turns its predecessor left waiting (``recover``). It has no timer: human time
limits need the Celery scheduler, which is what ``deploy/`` runs.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import datetime, timezone
from typing import Callable

from services.commands import RatingPolicy, ReviewPolicy, TableDefaults, Turn
from services.container import Webhooks
from services.handlers.matchmaking import match
from services.handlers.ratings import rate_all
from services.handlers.reviews import review_round
from services.handlers.turns import play_instead, take_ai_turn
from services.handlers.webhooks import deliver, prune
from services.ports import Adviser, Decide, Fallback, Secrets, UnitOfWork

log = logging.getLogger(__name__)


class BackgroundScheduler:
    def __init__(self, uow_factory: Callable[[], UnitOfWork], decide: Decide,
                 fallback: Fallback) -> None:
        self._uow_factory = uow_factory
        self._decide = decide
        self._fallback = fallback
        self._turns: queue.Queue[Turn] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, resent: bool = False) -> None:
        """Queued, and played once the caller's request is over (no pacing here)."""
        self._turns.put(Turn(game_id, seat, version))
        self._start()

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float,
                   resent: bool = False) -> None:
        pass  # no timer in process: time limits are the Celery scheduler's

    def recover(self, now: datetime | None = None) -> int:
        """Queue every AI turn the games wait on (left by a process that stopped); how
        many. A turn another process plays first is a no-op here: every write is
        conditional on the version."""
        try:
            with self._uow_factory() as uow:
                waiting = uow.turns.waiting("ai", now or datetime.now(timezone.utc))
        except Exception:  # noqa: BLE001 - e.g. not migrated yet: the service starts anyway
            log.exception("AI turns left waiting could not be looked up; the next start "
                          "tries again")
            return 0
        for w in waiting:
            self._turns.put(Turn(w.game_id, w.seat, w.version))
        if waiting:
            self._start()
        return len(waiting)

    def join(self) -> None:
        """Wait until every turn queued so far, and those it led to, is played."""
        self._turns.join()

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="president-ai-turns",
                                                daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            turn = self._turns.get()
            try:
                self._play(turn)
            finally:
                self._turns.task_done()

    def _play(self, turn: Turn) -> None:
        try:
            take_ai_turn(turn, self._uow_factory(), self._decide, self._fallback)
        except Exception:  # noqa: BLE001 - whatever failed, the seat is still played
            log.exception("AI turn %s failed; %s plays instead", turn, self._fallback.name)
            try:
                play_instead(turn, "ai_failed", self._uow_factory(), self._fallback)
            except Exception:  # noqa: BLE001 - the next start-up's recover tries again
                log.exception("AI turn %s: the fallback failed too", turn)


class BackgroundWebhooks:
    """The ``WebhookQueue`` when no broker is configured: each message attempted on a
    thread of a small pool of this process (a slow endpoint holds one thread, never a
    request nor a game). A message lost with the process is due again when its lease
    runs out, and the next process's relay hands it over."""

    THREADS = 4
    PRUNE_EVERY_S = 3600.0  # as Celery beat's ``prune-webhooks`` where there is a broker

    def __init__(self, uow_factory: Callable[[], UnitOfWork], webhooks: Webhooks,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        self._uow_factory = uow_factory
        self._webhooks = webhooks
        self._monotonic = monotonic
        self._pool = ThreadPoolExecutor(self.THREADS, thread_name_prefix="president-webhooks")
        self._pending: set[Future[str]] = set()
        self._lock = threading.Lock()
        self._pruned_at: float | None = None

    def deliver(self, message_id: int, hand: int) -> None:
        future = self._pool.submit(self._attempt, message_id, hand)
        with self._lock:
            self._pending.add(future)
        future.add_done_callback(self._done)

    def _attempt(self, message_id: int, hand: int) -> str:
        hooks = self._webhooks
        try:
            return deliver(message_id, hand, self._uow_factory(), hooks.sender, hooks.vault,
                           hooks.policy)
        except Exception:  # noqa: BLE001 - due again when its lease runs out
            log.exception("webhook message %d: the attempt failed", message_id)
            return "error"
        finally:  # (after the attempt, which a pruning that fails must not cost)
            self._prune_now_and_then()

    def _prune_now_and_then(self) -> None:
        """Settled messages pruned once an hour at most, as messages come (no new one:
        nothing grows to prune)."""
        with self._lock:
            now = self._monotonic()
            if self._pruned_at is not None and now - self._pruned_at < self.PRUNE_EVERY_S:
                return
            self._pruned_at = now
        try:
            prune(self._uow_factory(), self._webhooks.policy)
        except Exception:  # noqa: BLE001 - the next hour's pruning takes it up
            log.exception("pruning settled webhook messages failed")

    def _done(self, future: Future[str]) -> None:
        with self._lock:
            self._pending.discard(future)

    def join(self, timeout_s: float = 30.0) -> None:
        """Wait until every attempt started so far is over (tests)."""
        with self._lock:
            pending = list(self._pending)
        wait(pending, timeout_s)


class _OnDemand:
    """A ``Nudge`` without a broker: a thread of this process, started on the first
    poke (after any fork), woken by each; ``_run`` is its loop."""

    NAME = "president-on-demand"

    def __init__(self) -> None:
        self._wake = threading.Event()
        self._started = threading.Lock()
        self._thread: threading.Thread | None = None

    def poke(self) -> None:
        with self._started:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.NAME, daemon=True)
                self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        raise NotImplementedError


class BackgroundRatings(_OnDemand):
    """The rater when no broker is configured, poked by the relay (a round left queued
    by a process that stopped is rated when the next one's relay looks)."""

    NAME = "president-ratings"

    def __init__(self, uow_factory: Callable[[], UnitOfWork], policy: RatingPolicy) -> None:
        super().__init__()
        self._uow_factory = uow_factory
        self._policy = policy

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            try:
                rate_all(self._uow_factory, self._policy)
            except Exception:  # noqa: BLE001 - the rounds stay queued: the next wake
                log.exception("ratings: could not rate the queued rounds")


class BackgroundReviews(_OnDemand):
    """The reviews when no broker is configured: a thread computing them one at a time,
    oldest first, woken by each new one (one a stopped process left is taken up at the
    next)."""

    NAME = "president-reviews"

    def __init__(self, uow_factory: Callable[[], UnitOfWork], adviser: Adviser,
                 policy: ReviewPolicy) -> None:
        super().__init__()
        self._uow_factory = uow_factory
        self._adviser = adviser
        self._policy = policy

    def review(self, game_id: str, round_no: int) -> None:
        self.poke()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            try:
                while review_round("", None, self._uow_factory, self._adviser,
                                   self._policy) is not None:
                    pass
            except Exception:  # noqa: BLE001 - left running: its lease ends, a wake retries
                log.exception("reviews: a review failed")


class BackgroundMatcher(_OnDemand):
    """Matchmaking when no broker is configured, poked when a ticket comes: it seats the
    waiting tickets every ``every_s`` for as long as some wait (several processes each
    match: the lock makes them take turns)."""

    NAME = "president-matcher"

    def __init__(self, uow_factory: Callable[[], UnitOfWork], vault: Secrets,
                 defaults: TableDefaults, every_s: float = 1.0) -> None:
        super().__init__()
        self._uow_factory = uow_factory
        self._vault = vault
        self._defaults = defaults
        self._every_s = every_s

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            while self._waiting():
                try:
                    match(self._uow_factory(), self._vault, self._defaults)
                except Exception:  # noqa: BLE001 - the tickets wait: the next round
                    log.exception("matchmaking: could not seat the waiting tickets")
                self._wake.wait(self._every_s)
                self._wake.clear()

    def _waiting(self) -> bool:
        with self._uow_factory() as uow:
            return uow.tickets.pending()
