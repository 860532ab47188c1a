"""The API app on a test database, AI seats played inline: for the HTTP tests."""

from __future__ import annotations

from dataclasses import dataclass

from apiflask import APIFlask
from cryptography.fernet import Fernet
from sqlalchemy import Engine

from bootstrap import FALLBACK, AdviserHere, decide_here
from databases import play_inline
from services.api.app import create_app
from services.runtime.background import BackgroundReviews, BackgroundScheduler, BackgroundWebhooks
from services.commands import ReviewPolicy, WebhookPolicy
from services.container import Container, Webhooks
from services.runtime.inline import InlineScheduler
from services.ports import Decide
from services.runtime.relay import Relay
from services.store import Store
from services.store.secrets import FernetVault
from workers.ai import LEVELS
from workers.ai.processes import Processes
from workers.webhooks.http import HttpSender

# Quick retries, few endpoints a key, loopback receivers allowed (the tests' own).
POLICY = WebhookPolicy(retry_s=(0.2, 0.4), disable_after_s=3600, per_key=3, keep_s=3600,
                       queue_wait_s=10, lease_s=5)


def quick_webhooks(policy: WebhookPolicy = POLICY, timeout_s: float = 2.0) -> Webhooks:
    return Webhooks(HttpSender(timeout_s, "loopback"),
                    FernetVault([Fernet.generate_key().decode()]), policy)


def inline_app(db: Engine, pool: Processes | None = None) -> APIFlask:
    """``create_app`` on ``db`` (read through its own autocommit twin, as in production);
    hints thought in ``pool``'s processes (default: in this one)."""
    store = Store(db)
    play_inline(store)
    return _app(store, pool)


def background_app(db: Engine, decide: Decide) -> tuple[APIFlask, BackgroundScheduler]:
    """``create_app`` on ``db`` as ``bootstrap`` makes it without a broker: AI seats play
    after each request has answered, deciding with ``decide``."""
    store = Store(db)
    runner = BackgroundScheduler(store.uow, decide, FALLBACK)
    store.outbox_written = Relay(store.uow, runner).drain
    return _app(store), runner


# Expert's time a decision reviewed, in the tests: enough to weigh, quick to finish.
REVIEWS = ReviewPolicy(budget_ms=20.0, expires_s=60.0)


def _app(store: Store, pool: Processes | None = None) -> APIFlask:
    adviser = AdviserHere(pool)
    return create_app(Container(uow=store.uow, reads=store.reads, engines=LEVELS,
                                ready=store.ready, webhooks=quick_webhooks(),
                                adviser=adviser,
                                reviews=BackgroundReviews(store.uow, adviser, REVIEWS)))


@dataclass
class HookedApp:
    """The API on a database, AI seats played inline, webhook messages attempted on the
    background courier's threads; ``pump`` hands over what is due (retries)."""

    app: APIFlask
    store: Store
    courier: BackgroundWebhooks
    relay: Relay

    def pump(self) -> None:
        self.relay.drain()


def hooked_app(db: Engine, webhooks: Webhooks | None = None) -> HookedApp:
    store, hooks = Store(db), webhooks or quick_webhooks()
    scheduler = InlineScheduler(store.uow, decide_here, FALLBACK)
    courier = BackgroundWebhooks(store.uow, hooks)
    relay = Relay(store.uow, scheduler, None, (courier, hooks.policy.queue_wait_s))

    def after_commit() -> None:
        relay.drain()
        scheduler.play_queued()

    store.outbox_written = after_commit
    app = create_app(Container(uow=store.uow, reads=store.reads, engines=LEVELS,
                               ready=store.ready, webhooks=hooks))
    return HookedApp(app, store, courier, relay)


def deal_next(app: APIFlask, seed: int) -> None:
    """The next game ``app`` creates without a seed is dealt from ``seed`` (the tests'
    seam: a seed sent for a game others may sit in is refused), the ones after at random."""
    container: Container = app.extensions["president"]
    drawn = container.draw

    def once() -> int:
        container.draw = drawn
        return seed

    container.draw = once
