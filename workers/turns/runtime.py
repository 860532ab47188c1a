"""What a Celery worker process's tasks run with: the service layer's ports, plugged in
by the composition root (``bootstrap.turn_runtime``) on the first task a process runs,
after the fork (gRPC channels must not cross one)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from services.commands import RatingPolicy, ReviewPolicy, TableDefaults
from services.container import Webhooks
from services.ports import Adviser, Decide, Fallback, ReviewQueue, UnitOfWork


@dataclass(frozen=True)
class TurnRuntime:
    uow: Callable[[], UnitOfWork]
    decide: Decide  # the seat's engine, over gRPC: may raise ``workers.rpc.client.AiError``
    fallback: Fallback  # what plays when it keeps failing, or a human runs out of time
    webhooks: Webhooks | None = None  # what the webhook attempts need
    ratings: RatingPolicy = RatingPolicy()  # how rounds are rated
    defaults: TableDefaults = TableDefaults()  # what the games matchmaking makes get
    adviser: Adviser | None = None  # Expert over gRPC, for reviews
    reviews: ReviewQueue | None = None  # where the sweeper sends lost reviews again
    review_policy: ReviewPolicy | None = None
