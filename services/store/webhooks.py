"""Webhook endpoints and their messages in the database: the ``WebhookRepository`` port,
and the write of a move's hooks for its owner's endpoints (``write_hooks``; on
PostgreSQL's one-statement moves, the ``hooked`` part of ``moves.MOVES``)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Callable, Sequence

from sqlalchemy import Connection, and_, delete, func, insert, select, update
from sqlalchemy.orm import Session

from services.domain import (
    Answer, AttemptRecord, Delivery, Hook, Outcome, WebhookEndpoint,
)
from services.store.models import (
    ApiKeyRow, WebhookAttemptRow, WebhookEndpointRow, WebhookMessageRow, utcnow,
)
from services.store.timing import Moment, aware, clock

Message = WebhookMessageRow


def new_webhook_id() -> str:
    return "msg_" + uuid.uuid4().hex


def write_hooks(connection: Connection, owner: str | None, hooks: Sequence[Hook],
                at: Moment) -> bool:
    """One message per hook and enabled endpoint of ``owner`` that asked for its type;
    whether any was written."""
    if owner is None or not hooks:
        return False
    endpoints = connection.execute(
        select(WebhookEndpointRow.id, WebhookEndpointRow.event_types)
        .where(WebhookEndpointRow.owner == owner, WebhookEndpointRow.enabled)).all()
    rows = [{"webhook_id": new_webhook_id(), "endpoint_id": endpoint_id, "type": hook.type,
             "data": hook.data, "created_at": at, "state": "pending", "due_at": at,
             "hand": 0, "attempts": 0}
            for hook in hooks for endpoint_id, types in endpoints if hook.type in types]
    if rows:  # (a multi-row VALUES: ``at`` may be ``now()``)
        connection.execute(insert(Message).values(rows))
    return bool(rows)


def _endpoint(row: WebhookEndpointRow) -> WebhookEndpoint:
    return WebhookEndpoint(
        id=row.id,
        owner=row.owner,
        url=row.url,
        event_types=tuple(row.event_types),
        description=row.description,
        enabled=row.enabled,
        disabled_reason=row.disabled_reason,
        failing_since=None if row.failing_since is None else aware(row.failing_since),
        created_at=aware(row.created_at),
    )


class SqlWebhooks:
    """The ``WebhookRepository`` port on SQLAlchemy. Times are the database's clock on
    PostgreSQL, this machine's on SQLite (as everywhere in the store)."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def _after(self, seconds: float) -> Moment:
        return clock(self._session()) + timedelta(seconds=seconds)

    # -- endpoints

    def add(self, endpoint: WebhookEndpoint, sealed_secret: str) -> None:
        now = utcnow()
        self._session().add(WebhookEndpointRow(
            id=endpoint.id, owner=endpoint.owner, url=endpoint.url,
            event_types=list(endpoint.event_types), description=endpoint.description,
            secret=sealed_secret, enabled=endpoint.enabled, created_at=now, updated_at=now))

    def get(self, owner: str, endpoint_id: str) -> WebhookEndpoint | None:
        row = self._session().get(WebhookEndpointRow, endpoint_id)
        return None if row is None or row.owner != owner else _endpoint(row)

    def all(self, owner: str) -> list[WebhookEndpoint]:
        return [_endpoint(row) for row in self._session().scalars(
            select(WebhookEndpointRow).where(WebhookEndpointRow.owner == owner)
            .order_by(WebhookEndpointRow.created_at, WebhookEndpointRow.id))]

    def count(self, owner: str) -> int:
        # An update that changes nothing holds the key's row on PostgreSQL, and on SQLite
        # the one writer's lock (which a SELECT … FOR UPDATE would not take there).
        self._session().execute(update(ApiKeyRow).where(ApiKeyRow.id == owner)
                                .values(name=ApiKeyRow.name))
        return int(self._session().scalar(
            select(func.count()).where(WebhookEndpointRow.owner == owner)) or 0)

    def update(self, endpoint: WebhookEndpoint, sealed_secret: str | None = None) -> None:
        row = self._session().get(WebhookEndpointRow, endpoint.id)
        assert row is not None
        if endpoint.enabled and not row.enabled:
            row.disabled_reason, row.failing_since = None, None
        row.url, row.event_types = endpoint.url, list(endpoint.event_types)
        row.description, row.enabled = endpoint.description, endpoint.enabled
        row.secret = sealed_secret or row.secret
        row.updated_at = utcnow()

    def delete(self, owner: str, endpoint_id: str) -> bool:
        done = self._session().execute(delete(WebhookEndpointRow).where(
            WebhookEndpointRow.id == endpoint_id, WebhookEndpointRow.owner == owner))
        return bool(done.rowcount)  # type: ignore[attr-defined]

    # -- messages

    def claim_due(self, limit: int, lease_s: float) -> list[tuple[int, int]]:
        session = self._session()
        now = clock(session)
        due = and_(Message.state == "pending", Message.due_at <= now)
        if isinstance(now, datetime) and session.scalar(  # (SQLite)
                select(Message.id).where(due).limit(1)) is None:
            return []  # a look that finds nothing stays a read (SQLite's one write lock)
        oldest = (select(Message.id).where(due).order_by(Message.due_at).limit(limit)
                  .with_for_update(skip_locked=True))
        rows = session.execute(
            update(Message).where(Message.id.in_(oldest.scalar_subquery()))
            .values(due_at=self._after(lease_s), hand=Message.hand + 1)
            .returning(Message.id, Message.hand)
            .execution_options(synchronize_session=False)).all()
        return sorted((row.id, row.hand) for row in rows)

    def put_back(self, claimed: Sequence[tuple[int, int]]) -> None:
        if claimed:
            self._session().execute(
                update(Message).where(Message.id.in_([id_ for id_, _ in claimed]))
                .values(due_at=clock(self._session()))
                .execution_options(synchronize_session=False))

    def start(self, message_id: int, hand: int, lease_s: float) -> Delivery | None:
        """The task may start before the relay that handed it over has committed its
        claim: the message is then still at the hand before, which this matches, and
        PostgreSQL waits for the claim's commit and checks again (a row the statement
        did not match it would not wait for). A copy of an older hand matches neither."""
        session = self._session()
        now = clock(session)  # (PostgreSQL: the statement says it, as its transaction's)
        said = [] if isinstance(now, datetime) else [now.label("now")]
        row = session.execute(
            update(Message)
            .where(Message.id == message_id, Message.hand.in_((hand - 1, hand)),
                   Message.state == "pending")
            .values(hand=hand + 1, attempts=Message.attempts + 1,
                    due_at=now + timedelta(seconds=lease_s))
            .returning(Message.id, Message.webhook_id, Message.endpoint_id, Message.type,
                       Message.data, Message.created_at, Message.attempts, *said)
            .execution_options(synchronize_session=False)).one_or_none()
        if row is None:
            return None
        endpoint = session.get(WebhookEndpointRow, row.endpoint_id)
        if endpoint is None or not endpoint.enabled:  # disabled since the move wrote it
            self._settle(message_id, "failed")
            return None
        return Delivery(
            message_id=row.id,
            webhook_id=row.webhook_id,
            type=row.type,
            data=row.data,
            created_at=aware(row.created_at),
            attempt=row.attempts,
            endpoint=_endpoint(endpoint),
            sealed_secret=endpoint.secret,
            now=now if isinstance(now, datetime) else aware(row.now),
        )

    def _settle(self, message_id: int, state: str, retry_in_s: float | None = None) -> None:
        values: dict[str, object] = {"state": state}
        if retry_in_s is not None:
            values["due_at"] = self._after(retry_in_s)
        self._session().execute(
            update(Message).where(Message.id == message_id, Message.state == "pending")
            .values(values).execution_options(synchronize_session=False))

    def failing_since(self, endpoint_id: str) -> datetime | None:
        since = self._session().scalar(
            select(WebhookEndpointRow.failing_since)
            # (not FOR UPDATE: a move's new message, which refers to the row, goes on)
            .where(WebhookEndpointRow.id == endpoint_id).with_for_update(key_share=True))
        return None if since is None else aware(since)

    def finish(self, delivery: Delivery, answer: Answer, outcome: Outcome) -> None:
        session = self._session()
        session.execute(insert(WebhookAttemptRow).values(
            message_id=delivery.message_id, endpoint_id=delivery.endpoint.id,
            attempted_at=delivery.now, status_code=answer.status_code,
            latency_ms=answer.latency_ms, error=None if answer.error is None
            else answer.error[:300]))
        self._settle(delivery.message_id, outcome.state, outcome.retry_in_s)
        if outcome.failing_since is None:  # it works: one statement, no lock if it did
            session.execute(
                update(WebhookEndpointRow)
                .where(WebhookEndpointRow.id == delivery.endpoint.id,
                       WebhookEndpointRow.failing_since.is_not(None))
                .values(failing_since=None).execution_options(synchronize_session=False))
            return
        endpoint = session.get(WebhookEndpointRow, delivery.endpoint.id)
        if endpoint is None:
            return  # deleted meanwhile
        endpoint.failing_since = outcome.failing_since
        if outcome.disabled_reason is not None and endpoint.enabled:
            endpoint.enabled, endpoint.disabled_reason = False, outcome.disabled_reason
            session.execute(  # what waits for it will not be sent
                update(Message).where(Message.endpoint_id == endpoint.id,
                                      Message.state == "pending")
                .values(state="failed").execution_options(synchronize_session=False))

    def attempts(self, endpoint_id: str, limit: int, before: int | None
                 ) -> list[AttemptRecord]:
        query = (select(WebhookAttemptRow, Message.webhook_id, Message.type, Message.state)
                 .join(Message, Message.id == WebhookAttemptRow.message_id)
                 .where(WebhookAttemptRow.endpoint_id == endpoint_id)
                 .order_by(WebhookAttemptRow.id.desc()).limit(limit))
        if before is not None:
            query = query.where(WebhookAttemptRow.id < before)
        return [
            AttemptRecord(
                id=a.id,
                webhook_id=webhook_id,
                type=type_,
                attempted_at=aware(a.attempted_at),
                status_code=a.status_code,
                latency_ms=a.latency_ms,
                error=a.error,
                state=state,
            )
            for a, webhook_id, type_, state in self._session().execute(query)
        ]

    def prune(self, older_than_s: float) -> int:
        done = self._session().execute(delete(Message).where(
            Message.state != "pending", Message.created_at < self._after(-older_than_s)))
        return int(done.rowcount)  # type: ignore[attr-defined]

