"""What the entry points call the service layer with: its ports, plugged in by
``bootstrap`` (the one place that knows the adapters)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from services.commands import RatingPolicy, TableDefaults, WebhookPolicy
from services.domain import new_seed
from services.ports import (
    Adviser, Nudge, Reads, ReviewQueue, Secrets, UnitOfWork, WebhookSender,
)


@dataclass(frozen=True)
class Webhooks:
    """What registering endpoints and delivering messages need."""

    sender: WebhookSender
    vault: Secrets  # the signing secrets, encrypted at rest
    policy: WebhookPolicy


@dataclass
class Container:
    uow: Callable[[], UnitOfWork]
    reads: Reads  # reads need no transaction, and no unit of work
    engines: tuple[str, ...]  # AI engine names a game may seat
    ready: Callable[[], bool]  # the database reachable and its migrations current
    defaults: TableDefaults = field(default_factory=TableDefaults)
    webhooks: Webhooks | None = None  # None: no webhooks (their routes answer 404)
    ratings: RatingPolicy = field(default_factory=RatingPolicy)  # pools, leaderboards
    matcher: Nudge | None = None  # poked when a ticket comes (None: beat's only)
    adviser: Adviser | None = None  # hints (None: this service gives none)
    reviews: ReviewQueue | None = None  # round reviews (None: this service makes none)
    # The seed of a game sent none: the tests' seam (no setting or request reaches it).
    draw: Callable[[], int] = new_seed
