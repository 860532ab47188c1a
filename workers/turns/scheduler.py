"""The service's ``TurnScheduler`` on Celery: each turn becomes a task on its level's
queue (and its ``WebhookQueue``: each webhook message an attempt task; its
``ReviewQueue``: each review a task; the rater and the matcher, ``CeleryNudge``). Tasks are sent
by name, so the sender never imports the task code.

Each message expires ``turn_expires_s`` after it is due, counted from its hand-over (a
late hand-over moves the turn's due time in the store with it): a turn the sweeper sends
again (``handlers.turns.sweep``) never finds an older copy still waiting to start."""

from __future__ import annotations

import time
from typing import Any, Callable

from celery import Celery

from workers.turns.app import (
    MAINTENANCE_QUEUE, NEW_PRIORITY, RATINGS_QUEUE, RESENT_PRIORITY, REVIEWS_QUEUE,
    WEBHOOKS_QUEUE, queue_for,
)

# Longer time limits are not sent as countdown tasks: the sweeper finds them by their
# deadline (a worker holds a countdown task in memory all along, and Redis hands it out
# again after its visibility timeout).
COUNTDOWN_LIMIT_S = 300.0

PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2,
                 "interval_max": 0.5}


def publish(app: Celery, task: str, queue: str, priority: int = NEW_PRIORITY,
            **options: Any) -> None:
    """Send ``task`` by name (its code never imported here), retrying a broker that does
    not take it at once; raises if it still does not."""
    app.send_task(task, queue=queue, priority=priority, retry=True,
                  retry_policy=PUBLISH_RETRY, **options)


class CeleryScheduler:
    def __init__(self, app: Celery, turn_expires_s: float) -> None:
        self.app = app
        self.turn_expires_s = turn_expires_s

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, resent: bool = False) -> None:
        self._send("president.ai_turn", (game_id, seat, version), queue_for(engine), delay_s,
                   resent)

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float,
                   resent: bool = False) -> None:
        if timeout_s <= COUNTDOWN_LIMIT_S:
            self._send("president.turn_timeout", (game_id, seat, version), MAINTENANCE_QUEUE,
                       timeout_s, resent)

    def _send(self, task: str, args: tuple[str, int, int], queue: str, delay_s: float,
              resent: bool) -> None:
        """Raises when the broker cannot take it: the message stays in the outbox."""
        publish(self.app, task, queue, RESENT_PRIORITY if resent else NEW_PRIORITY,
                args=args, countdown=delay_s or None, expires=delay_s + self.turn_expires_s)


class CeleryWebhooks:
    """The ``WebhookQueue`` on Celery: each message an attempt task on the webhooks queue,
    dropped unstarted after ``wait_s`` (by then the relay hands it over again)."""

    def __init__(self, app: Celery, wait_s: float) -> None:
        self.app = app
        self.wait_s = wait_s

    def deliver(self, message_id: int, hand: int) -> None:
        publish(self.app, "president.deliver_webhook", WEBHOOKS_QUEUE,
                args=(message_id, hand), expires=self.wait_s)


class CeleryReviews:
    """The ``ReviewQueue`` on Celery: each review a task on the reviews queue, dropped
    unstarted after ``expires_s`` (the sweeper sends it again then; a copy claims
    nothing: the review runs once)."""

    def __init__(self, app: Celery, expires_s: float) -> None:
        self.app = app
        self.expires_s = expires_s

    def review(self, game_id: str, round_no: int) -> None:
        publish(self.app, "president.review_round", REVIEWS_QUEUE, args=(game_id, round_no),
                expires=self.expires_s)


class CeleryNudge:
    """A ``Nudge`` on Celery: ``task`` (no arguments) sent to ``queue`` at most every
    ``every_s`` by this process, dropped unstarted after ``expires_s`` (each run does
    all there is to do, so a poke between two sends loses nothing)."""

    def __init__(self, app: Celery, task: str, queue: str, every_s: float, expires_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self._task, self._queue = task, queue
        self._every_s, self._expires_s = every_s, expires_s
        self._clock = clock
        self._sent = -every_s

    def poke(self) -> None:
        now = self._clock()
        if now - self._sent < self._every_s:
            return
        publish(self.app, self._task, self._queue, expires=self._expires_s)
        self._sent = now


def celery_rater(app: Celery) -> CeleryNudge:
    """The rater, on its own queue, sent when the relay finds rounds to rate."""
    return CeleryNudge(app, "president.rate_rounds", RATINGS_QUEUE, every_s=1.0,
                       expires_s=10.0)


def celery_matcher(app: Celery) -> CeleryNudge:
    """The matcher, sent when a ticket comes (beat sends it every second besides)."""
    return CeleryNudge(app, "president.match", MAINTENANCE_QUEUE, every_s=0.2, expires_s=1.0)
