"""The composition root: the one module that knows every adapter and plugs them into the
service layer's ports (``services.ports``). Entry points start here:
- ``api_app``: the REST API (gunicorn loads ``bootstrap:api_app()`` in each worker);
- ``celery_app``: the Celery app of a worker or beat process, with ``turn_runtime``;
- ``container``: the service layer on a database, AI turns played in process after
  each request has answered (the background runner) or sent through Celery when a
  broker is given.
"""

from __future__ import annotations

from apiflask import APIFlask
from celery import Celery

from config import tracing
from config.settings import defaulted, setting
from engine import View
from engine.plays import Action
from services.api.app import create_app, matched_route
from services.commands import RatingPolicy, ReviewPolicy, TableDefaults, WebhookPolicy
from services.container import Container, Webhooks
from services.runtime.background import (
    BackgroundMatcher, BackgroundRatings, BackgroundReviews, BackgroundScheduler,
    BackgroundWebhooks,
)
from services.domain import Hint
from services.domain import Weighed as HintCandidate
from services.errors import AiBusy, Unavailable
from services.ports import (
    Adviser, Decide, Fallback, Nudge, ReviewQueue, TurnScheduler, WebhookQueue,
)
from services.runtime.relay import Relay
from services.store import Store
from services.store.secrets import FernetVault
from workers.ai import DEFAULT_BUDGETS, LEVELS, Budget, Weighed, analyse, decide
from workers.ai.processes import PoolFailed, PoolFull, Processes
from workers.rpc.client import AiClient, AiError, engines_from_env, tls_roots_from_env
from workers.turns.app import make_celery
from workers.turns.runtime import TurnRuntime
from workers.turns.scheduler import (
    CeleryReviews, CeleryScheduler, CeleryWebhooks, celery_matcher, celery_rater,
)
from workers.turns.settings import TurnSettings
from workers.webhooks.http import HttpSender


class AdviserHere:
    """The ``Adviser`` on this machine (no broker: no AI worker either): the levels in
    ``pool``'s processes, or in this process without one. ``wait``: for a place in the
    pool (a review), rather than refusing (a hint: ``AiBusy``)."""

    def __init__(self, pool: Processes | None = None, wait: bool = False) -> None:
        self._pool, self._wait = pool, wait

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint:
        budget = _budget(budget_ms)
        if self._pool is None:
            return _hint(level, *analyse(view, level, seed=seed, budget=budget, also=also))
        try:
            found = self._pool.analyse(view, level, seed, budget, also, wait=self._wait)
        except PoolFull as error:
            raise AiBusy(f"the AI levels of this service are all thinking: {error}; try "
                         "again in a moment") from error
        except PoolFailed as error:
            raise Unavailable(f"the AI level {level} gave no hint: {error}") from error
        return _hint(level, found.action, found.weighed, found.seconds)


class AdviserOverGrpc:
    """The ``Adviser`` on the gRPC AI workers: the budget (or the level's default) and
    a margin as the call's deadline."""

    MARGIN_S = 1.0

    def __init__(self, client: AiClient) -> None:
        self._client = client

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint:
        default = DEFAULT_BUDGETS.get(level)
        ms = budget_ms or (default.milliseconds if default is not None else None) or 0.0
        try:
            action, weighed = self._client.analyse(view, level, seed=seed,
                                                   budget=_budget(budget_ms),
                                                   timeout_s=ms / 1000 + self.MARGIN_S,
                                                   also=also)
        except AiError as error:
            raise Unavailable(f"the AI level {level} gave no hint: {error}") from error
        return _hint(level, action, weighed)


def _budget(budget_ms: float | None) -> Budget | None:
    return None if budget_ms is None else Budget(milliseconds=budget_ms)


def _hint(level: str, action: Action, weighed: tuple[Weighed, ...],
          thought_s: float | None = None) -> Hint:
    return Hint(level, str(action), tuple(HintCandidate(str(w.action), w.expected_points,
                                                        w.simulations) for w in weighed),
                thought_s)


def decide_here(view: View, level: str) -> Action:
    """A built-in level deciding in this process, seeded by the position (the fallback,
    and the tests' engine)."""
    return decide(view, level, seed=len(view.history))


def decide_in(pool: Processes) -> Decide:
    """A built-in level deciding in ``pool``'s processes, seeded by the position (the
    background runner's engine): it waits for a place, as its one thread plays one turn
    at a time."""
    return lambda view, level: pool.decide(view, level, seed=len(view.history))


def inline_pool() -> Processes:
    """The processes in which the levels think when there is no broker."""
    return Processes(int(defaulted("PRESIDENT_INLINE_AI_WORKERS")),
                     int(defaulted("PRESIDENT_INLINE_AI_QUEUE")))


# The service plays a seat itself (an AI that kept failing, a human out of time) with
# the weakest level, in process: it needs no worker and answers at once.
FALLBACK = Fallback(LEVELS[0], lambda view: decide_here(view, LEVELS[0]))


def open_store(database_url: str | None = None) -> Store:
    """The database at ``database_url`` (default ``DATABASE_URL``), read through the
    change feed where ``PRESIDENT_CHANGE_FEED_URL`` says."""
    return Store.open(database_url or setting("DATABASE_URL"),
                      setting("PRESIDENT_CHANGE_FEED_URL"), cache_bytes("states"))


def cache_bytes(kind: str) -> int:
    """A process's share of ``PRESIDENT_CACHE_MB`` for the game ``states`` it keeps (3/4)
    or the views it has ``rendered`` (1/4)."""
    total = int(defaulted("PRESIDENT_CACHE_MB")) * 2**20
    return total * 3 // 4 if kind == "states" else total // 4


def container(database_url: str | None = None, broker_url: str | None = None,
              store: Store | None = None) -> Container:
    """With a broker, AI turns go through Celery to the gRPC workers (and any bot
    configured in ``PRESIDENT_AI_ENGINES`` may be seated); without, they are played in
    this process, after the request that made them has answered, starting with those a
    previous process left waiting."""
    store = store or open_store(database_url)
    hooks, policy = webhooks(), rating_policy()
    if broker_url is None:
        pool = inline_pool()
        background = BackgroundScheduler(store.uow, decide_in(pool), FALLBACK)
        background.recover()
        scheduler: BackgroundScheduler | CeleryScheduler = background
        queue: WebhookQueue = BackgroundWebhooks(store.uow, hooks)
        ratings: Nudge = BackgroundRatings(store.uow, policy)
        matcher: Nudge = BackgroundMatcher(store.uow, hooks.vault, table_defaults())
        adviser: Adviser = AdviserHere(pool)
        reviews: ReviewQueue = BackgroundReviews(store.uow, AdviserHere(pool, wait=True),
                                                 review_policy())
        engines = LEVELS
    else:
        settings = TurnSettings.from_env(broker_url=broker_url)
        app = make_celery(settings)
        scheduler = CeleryScheduler(app, settings.turn_expires_s)
        queue = CeleryWebhooks(app, hooks.policy.queue_wait_s)
        ratings, matcher = celery_rater(app), celery_matcher(app)
        adviser = AdviserOverGrpc(AiClient(engines_from_env(), tls_roots=tls_roots_from_env()))
        reviews = CeleryReviews(app, review_policy().expires_s)
        engines = tuple(engines_from_env())
    start_relay(store, scheduler, queue, hooks.policy, ratings)
    return Container(uow=store.uow, reads=store.reads, engines=engines,
                     ready=store.ready, defaults=table_defaults(), webhooks=hooks,
                     ratings=policy, matcher=matcher, adviser=adviser, reviews=reviews)


def start_relay(store: Store, scheduler: TurnScheduler, webhook_queue: WebhookQueue,
                policy: WebhookPolicy, ratings: Nudge) -> Relay:
    """The process's outbox relay, handing ``store``'s outbox to ``scheduler``, its
    webhook messages to ``webhook_queue``, and its rounds to rate to ``ratings``: on
    PostgreSQL woken by every process's commits
    (the leader's thread hands over); on SQLite, the committing thread hands its messages
    over itself, at once, and the relay's thread looks for other processes' (a worker
    polling the embedded broker would otherwise look before the thread had sent the next
    turn, and wait a poll for it)."""
    relay = Relay(store.uow, scheduler, store.outbox_wake(),
                  (webhook_queue, policy.queue_wait_s), ratings).start()
    store.outbox_written = relay.poke if store.engine.dialect.name == "postgresql" else relay.drain
    return relay


def container_from_env() -> Container:
    return container(setting("DATABASE_URL"), setting("CELERY_BROKER_URL"))


def webhooks() -> Webhooks:
    """The webhooks' sender, secret vault and policy, from the settings."""
    sender = HttpSender(float(defaulted("PRESIDENT_WEBHOOK_TIMEOUT_S")),
                        defaulted("PRESIDENT_WEBHOOK_PRIVATE_URLS"))
    return Webhooks(
        sender,
        FernetVault.from_setting(setting("PRESIDENT_SECRET_KEY"),
                                 defaulted("PRESIDENT_VAR_DIR")),
        WebhookPolicy(
            retry_s=tuple(float(s) for s in defaulted("PRESIDENT_WEBHOOK_RETRY_S").split(",")),
            disable_after_s=float(defaulted("PRESIDENT_WEBHOOK_DISABLE_AFTER_S")),
            per_key=int(defaulted("PRESIDENT_WEBHOOKS_PER_KEY")),
            keep_s=float(defaulted("PRESIDENT_WEBHOOK_KEEP_S")),
            # longer than any backlog a healthy deployment has: a task lost with the broker
            queue_wait_s=60.0,
            lease_s=sender.attempt_s + 5))


def rating_policy() -> RatingPolicy:
    return RatingPolicy(defaulted("PRESIDENT_RATING_POOLS"),
                        setting("PRESIDENT_RATING_SEASON") or None,
                        int(defaulted("PRESIDENT_LEADERBOARD_MIN_ROUNDS")))


def review_policy() -> ReviewPolicy:
    return ReviewPolicy(float(defaulted("PRESIDENT_REVIEW_BUDGET_MS")),
                        float(defaulted("PRESIDENT_REVIEW_EXPIRES_S")))


def table_defaults() -> TableDefaults:
    timeout = setting("PRESIDENT_TURN_TIMEOUT_MS")
    return TableDefaults(int(defaulted("PRESIDENT_AI_PACE_MS")),
                         int(timeout) if timeout else None)


def api_app(services: Container | None = None) -> APIFlask:
    """The REST API and play page, on the settings' database and broker by default;
    traced when the ``OTEL_*`` settings say so (``config.tracing``)."""
    tracing.start("president-api")
    app = create_app(services or container_from_env(), cache_bytes("rendered"))
    tracing.instrument_app(app, matched_route)
    return app


def celery_app(settings: TurnSettings | None = None) -> Celery:
    """The Celery app of a worker or beat process: its tasks run with ``turn_runtime``."""
    settings = settings or TurnSettings.from_env()
    return make_celery(settings, lambda app: turn_runtime(app, settings))


def turn_runtime(app: Celery, settings: TurnSettings) -> TurnRuntime:
    """A Celery worker process's collaborators: the database, the gRPC AI client (each
    answer checked against the seat's legal actions), the scheduler on ``app``."""
    store = open_store()
    ai = AiClient(engines_from_env(), tls_roots=tls_roots_from_env())

    def over_grpc(view: View, engine: str) -> Action:
        return ai.decide(view, engine, seed=len(view.history), timeout_s=settings.ai_deadline_s)

    scheduler = CeleryScheduler(app, settings.turn_expires_s)
    hooks, policy, reviewing = webhooks(), rating_policy(), review_policy()
    start_relay(store, scheduler, CeleryWebhooks(app, hooks.policy.queue_wait_s),
                hooks.policy, celery_rater(app))
    return TurnRuntime(store.uow, over_grpc, FALLBACK, hooks, policy, table_defaults(),
                       adviser=AdviserOverGrpc(ai),
                       reviews=CeleryReviews(app, reviewing.expires_s),
                       review_policy=reviewing)
