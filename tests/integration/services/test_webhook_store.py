"""Webhook messages in the database, on SQLite and PostgreSQL: written with the move
that made them, claimed once by racing relays, and taken by the attempt task even when
it starts before the relay that handed it over has committed its claim (as a fast
worker does)."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

from sqlalchemy import Engine, func, select, update

from dealt import create_dealt
from services.commands import CreateGame, RegisterWebhook, SeatSpec, WebhookPolicy
from services.domain import Answer, ApiKey, Caller, Delivery, Outcome
from services.handlers.games import create_game
from services.handlers.webhooks import register
from services.store import Store
from services.store.models import WebhookAttemptRow, WebhookMessageRow
from workers.ai import LEVELS

CALLER = Caller(ApiKey("k" * 32, "app", frozenset({"webhooks", "games:create-human"})))
POLICY = WebhookPolicy(retry_s=(1,), disable_after_s=60, per_key=5, keep_s=60,
                       queue_wait_s=60, lease_s=30)


class Allow:
    def check(self, url: str) -> None:
        pass

    def send(self, url: str, webhook_id: str, body: str, secret: str) -> Answer:
        return Answer(200, 1)


class Plain:
    def seal(self, secret: str) -> str:
        return secret

    def open(self, sealed: str) -> str:
        return sealed


def _turns(store: Store, games: int) -> None:
    """``games`` four-human games of the key, each writing its first seat.turn."""
    register(RegisterWebhook("https://hooks.example.com/", ("seat.turn",)), store.uow(),
             CALLER, Allow(), Plain(), POLICY)
    for n in range(games):
        create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=n), store.uow(),
                    LEVELS, caller=CALLER)


def _count(db: Engine) -> int:
    with db.connect() as c:
        return int(c.execute(select(func.count()).select_from(WebhookMessageRow)).scalar_one())


def test_a_game_s_creation_writes_its_message_in_its_own_transaction(store: Store,
                                                                      db: Engine) -> None:
    _turns(store, 3)
    assert _count(db) == 3
    other = Caller(ApiKey("o" * 32, "other", frozenset({"games:create-human"})))  # not its
    create_dealt(CreateGame("classic", (SeatSpec("human"),) * 4, seed=9), store.uow(), LEVELS,
                caller=other)
    assert _count(db) == 3


def test_racing_relays_claim_each_message_once(store: Store, db: Engine) -> None:
    _turns(store, 40)
    claimed: list[tuple[int, int]] = []
    lock, start = threading.Lock(), threading.Barrier(4)

    def race() -> None:
        start.wait()
        while True:
            with store.uow() as uow:
                mine = uow.webhooks.claim_due(7, 60)
                uow.commit()
            if not mine:
                return
            with lock:
                claimed.extend(mine)

    threads = [threading.Thread(target=race) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(claimed) == 40 and len({m for m, _ in claimed}) == 40
    assert {hand for _, hand in claimed} == {1}


def test_an_attempt_that_starts_before_the_claim_commits_waits_for_it(store: Store) -> None:
    _turns(store, 1)
    relay = store.uow().__enter__()
    (message_id, hand), = relay.webhooks.claim_due(10, 60)  # not committed yet
    got: list[Delivery | None] = []

    def attempt() -> None:
        with store.uow() as uow:
            got.append(uow.webhooks.start(message_id, hand, 30))
            uow.commit()

    task = threading.Thread(target=attempt)
    task.start()
    time.sleep(0.3)
    assert got == []  # the task waits on the claim
    relay.commit()
    relay.__exit__(None, None, None)
    task.join(10)
    assert got and got[0] is not None and got[0].attempt == 1
    with store.uow() as uow:  # a copy of that hand-over, or of an older one, takes nothing
        assert uow.webhooks.start(message_id, hand, 30) is None
        assert uow.webhooks.start(message_id, hand - 1, 30) is None


def test_settled_messages_are_pruned_with_their_attempts_and_waiting_ones_kept(
        store: Store, db: Engine) -> None:
    _turns(store, 3)
    with store.uow() as uow:
        claimed = uow.webhooks.claim_due(10, 60)
        uow.commit()
    outcomes = [Outcome("delivered", None, None), Outcome("failed", None, None)]
    for (message_id, hand), outcome in zip(claimed, outcomes):  # the third stays waiting
        with store.uow() as uow:
            delivery = uow.webhooks.start(message_id, hand, 30)
            assert delivery is not None
            uow.webhooks.finish(delivery, Answer(200, 5), outcome)
            uow.commit()
    with store.uow() as uow:
        assert uow.webhooks.prune(3600) == 0  # not old enough yet
        uow.commit()
    with db.begin() as c:  # three days later
        c.execute(update(WebhookMessageRow).values(
            created_at=WebhookMessageRow.created_at - timedelta(days=3)))
    with store.uow() as uow:
        assert uow.webhooks.prune(3600) == 2
        uow.commit()
    with db.connect() as c:
        assert c.execute(select(WebhookMessageRow.state)).scalars().all() == ["pending"]
        assert c.execute(select(func.count()).select_from(WebhookAttemptRow)).scalar() == 0
