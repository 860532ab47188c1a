"""The Celery app factory: one app for the API (which only sends tasks), the workers and
beat. Nothing connects until a task is sent or a worker starts."""

from __future__ import annotations

from typing import Callable

from celery import Celery

from config import tracing
from workers.ai import LEVELS
from workers.turns import embedded
from workers.turns.broker import is_redis
from workers.turns.runtime import TurnRuntime
from workers.turns.settings import TurnSettings
# One queue per level, so that slow levels never starve fast ones; third-party bots
# share one; sweeps, time limits and broker cleanup have their own; webhook attempts
# theirs (a slow endpoint never delays a turn); the rater its own. Round reviews (seconds
# of Expert each, asked for from outside) have theirs too, served by workers of their
# own: a worker's default queues leave it out, so no review ever holds a turn's worker.
BOTS_QUEUE = "ai.bots"
MAINTENANCE_QUEUE = "turns.maintenance"
WEBHOOKS_QUEUE = "webhooks"
RATINGS_QUEUE = "ratings"
REVIEWS_QUEUE = "reviews"
DEFAULT_QUEUES = tuple(f"ai.{level}" for level in LEVELS) + (BOTS_QUEUE, MAINTENANCE_QUEUE,
                                                             WEBHOOKS_QUEUE, RATINGS_QUEUE)
QUEUES = DEFAULT_QUEUES + (REVIEWS_QUEUE,)
# A turn the sweeper sends again has waited longest: on Redis it goes before every other
# message of every queue (kombu keeps a list per priority step, 0 3 6 9, and a worker's
# BRPOP names the step-0 lists first), with beat's few periodic tasks (the sweeper on
# time); everything else goes at one priority, so the queues still take turns. The
# embedded broker keeps to the order messages came in.
RESENT_PRIORITY, NEW_PRIORITY = 0, 3


def queue_for(engine: str) -> str:
    return f"ai.{engine}" if engine in LEVELS else BOTS_QUEUE


def _sender_only(app: Celery) -> TurnRuntime:
    raise RuntimeError("this Celery app only sends tasks: a worker's comes from "
                       "bootstrap.celery_app")


def make_celery(settings: TurnSettings | None = None,
                runtime: Callable[[Celery], TurnRuntime] = _sender_only) -> Celery:
    """``runtime``: what the tasks run with, built from the app on a worker process's
    first task (an app that only sends tasks, as the API's, needs none)."""
    from workers.turns import tasks  # the tasks need the app; the app registers them

    settings = settings or TurnSettings.from_env()
    app = Celery("president", broker=settings.broker_url, set_as_current=False)
    app.conf.update(
        task_serializer="json", accept_content=["json"], task_ignore_result=True,
        # A task is acknowledged once received: a turn lost with its worker (killed
        # mid-turn, or holding it when the broker restarted) is sent again by the sweeper
        # within seconds (docs/pipeline.md). Late acknowledgements gave nothing more (Redis
        # hands an unacknowledged message out again only after its visibility timeout, an
        # hour), and when Redis restarted, acknowledging a finished turn over the channel
        # kombu had let go of raised AttributeError out of the worker's loop: it ended.
        task_acks_late=False, worker_prefetch_multiplier=1,
        # On Redis, no message taken before a process is free to start it: one held
        # behind a slow start (a new worker's first turns) would expire there unstarted
        # and wait for the sweeper, when another worker could have played it at once.
        worker_disable_prefetch=is_redis(settings.broker_url),
        task_default_queue=MAINTENANCE_QUEUE,
        broker_connection_retry_on_startup=True,
        worker_consumer="workers.turns.broker:QuickReconnect",  # back within 0.1 s
        worker_hijack_root_logger=False,  # the process's logging setup stands
        beat_schedule=_beat_schedule(settings),
        timezone="UTC",
    )
    if embedded.is_embedded(settings.broker_url):
        embedded.set_polling_interval(settings.broker_poll_s)
    if tracing.enabled():
        _traced(app)
    _no_restore_at_reconnect()
    tasks.register(app, settings, runtime)
    return app


def _traced(app: Celery) -> None:
    """Tracing on (``config.tracing``): each worker process starts it once it runs (after
    the pool's fork), and the app is the current one, where Celery's instrumentation
    looks a published task up by its name (else the publish's span is never ended)."""
    from celery.signals import worker_init, worker_process_init

    def start(**_: object) -> None:
        tracing.start("president-celery")

    worker_init.connect(start, weak=False)
    worker_process_init.connect(start, weak=False)
    app.set_current()


def _no_restore_at_reconnect() -> None:
    """Redis: a worker whose connection breaks puts the messages it holds unacknowledged
    back in their queues as it closes the channel, over a connection kombu has already
    let go of; when the broker itself restarted, that raised AttributeError ("'NoneType'
    object has no attribute 'hostname'") out of Celery's reconnect, and the worker ended.
    Nothing here needs those messages: the outbox and the sweeper send a turn whose
    message was lost, and a copy sent twice plays nothing (and Redis still hands an
    unacknowledged message out again after its visibility timeout)."""
    from kombu.transport import redis

    redis.QoS.restore_at_shutdown = False


def _beat_schedule(settings: TurnSettings) -> dict[str, dict[str, object]]:
    schedule: dict[str, dict[str, object]] = {
        "sweep": {"task": "president.sweep", "schedule": settings.sweep_every_s,
                  "options": {"queue": MAINTENANCE_QUEUE, "expires": settings.sweep_every_s}},
        "prune-webhooks": {"task": "president.prune_webhooks", "schedule": 3600.0,
                           "options": {"queue": MAINTENANCE_QUEUE, "expires": 3600}},
        # waiting tickets seated (handlers.matchmaking)
        "match": {"task": "president.match", "schedule": 1.0,
                  "options": {"queue": MAINTENANCE_QUEUE, "expires": 1}},
        # seats not heard from lately are disconnected (handlers.presence)
        "expire-presence": {"task": "president.expire_presence", "schedule": 5.0,
                            "options": {"queue": MAINTENANCE_QUEUE, "expires": 5}},
        # reviews whose task was lost sent again (handlers.reviews)
        "sweep-reviews": {"task": "president.sweep_reviews",
                          "schedule": settings.sweep_every_s,
                          "options": {"queue": MAINTENANCE_QUEUE,
                                      "expires": settings.sweep_every_s}},
    }
    if embedded.is_embedded(settings.broker_url):
        schedule["broker-cleanup"] = {"task": "president.broker_cleanup", "schedule": 60.0,
                                      "options": {"queue": MAINTENANCE_QUEUE, "expires": 60}}
    return schedule
