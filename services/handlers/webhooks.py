"""Webhooks (the Standard Webhooks specification): a client key's endpoints, the messages
its games' moves write for them, and one attempt to deliver a message.

A move writes its ``hooks`` (``followups.hooks_of``) in its own transaction, one message per
endpoint of the game's owner that asked for the type; the outbox's relay hands each
message to the ``WebhookQueue`` when due; a task makes one attempt (``deliver``) and
settles the message or makes it due again after the policy's next pause. Details:
docs/webhooks.md.
"""

from __future__ import annotations

import base64
import logging
import secrets
import uuid
from dataclasses import replace
from datetime import timedelta
from typing import Sequence
from urllib.parse import urlsplit

from services.commands import RegisterWebhook, UpdateWebhook, WebhookPolicy
from services.domain import (
    WEBHOOK_TYPES, Answer, AttemptRecord, Caller, Delivery, Outcome,
    WebhookEndpoint,
)
from services.errors import (
    BadCursor, BadWebhook, KeyRequired, MissingScope, TooManyWebhooks, WebhookNotFound,
)
from services.jsoncodec import dumps
from services.ports import Secrets, UnitOfWork, WebhookSender

log = logging.getLogger(__name__)

SECRET_PREFIX = "whsec_"  # the specification's: a receiver's library takes it as it is
URL_LENGTH = 2048
SCOPE = "webhooks"




def body(delivery: Delivery) -> str:
    """The message's body: the same text on every attempt (it is what is signed). A
    turn's deadline is the move's moment plus the seat's time limit, by the database's
    clock, as the service holds the seat to it."""
    data = dict(delivery.data)
    limit = data.get("time_limit_ms")
    if delivery.type == "seat.turn":
        data["deadline"] = (None if not isinstance(limit, int) else
                            (delivery.created_at + timedelta(milliseconds=limit)).isoformat())
    return dumps({"type": delivery.type, "timestamp": delivery.created_at.isoformat(),
                  "data": data})


# -- a key's endpoints ---------------------------------------------------------------

def _owner(caller: Caller) -> str:
    if caller.key is None:
        raise KeyRequired("webhooks belong to a client key: send it as X-API-Key")
    if not caller.may(SCOPE):
        raise MissingScope(f"this key may not manage webhooks (scope {SCOPE!r})")
    return caller.key.id


def _checked_url(url: str, sender: WebhookSender) -> str:
    """``url``, if it is one to call: what is shown is what is called, so no space or
    control character (an HTTP client would quote them into another URL)."""
    try:
        parts = urlsplit(url)
        parts.port  # (a port out of range, or not a number, is refused on reading it)
    except ValueError:
        parts = None
    if (parts is None or len(url) > URL_LENGTH or not url.isprintable() or " " in url
            or parts.scheme not in ("http", "https") or not parts.hostname):
        raise BadWebhook(f"a webhook URL is http(s)://host/…, at most {URL_LENGTH} "
                         f"printable characters without spaces, not {url[:80]!r}")
    if "@" in parts.netloc:  # (``http://:@host/`` too: an empty name is still one)
        raise BadWebhook("a webhook URL carries no user name or password")
    sender.check(url)  # UrlRefused: a loopback, private or link-local address
    return url


def _checked_description(description: str | None) -> str | None:
    if description is not None and not description.isprintable():
        raise BadWebhook("a webhook's description is printable characters only")
    return description


def _checked_types(types: Sequence[str]) -> tuple[str, ...]:
    unknown = sorted(set(types) - set(WEBHOOK_TYPES))
    if unknown or not types:
        raise BadWebhook(f"event types are among {', '.join(WEBHOOK_TYPES)}, "
                         f"not {unknown or 'none'}")
    return tuple(dict.fromkeys(types))


def register(cmd: RegisterWebhook, uow: UnitOfWork, caller: Caller, sender: WebhookSender,
             vault: Secrets, policy: WebhookPolicy) -> tuple[WebhookEndpoint, str]:
    """The endpoint and its signing secret, which is shown now and never again."""
    owner = _owner(caller)
    endpoint = WebhookEndpoint(uuid.uuid4().hex, owner, _checked_url(cmd.url, sender),
                               _checked_types(cmd.event_types),
                               _checked_description(cmd.description))
    secret = new_secret()
    with uow:
        if uow.webhooks.count(owner) >= policy.per_key:
            raise TooManyWebhooks(f"a key has at most {policy.per_key} webhook endpoints")
        uow.webhooks.add(endpoint, vault.seal(secret))
        uow.commit()
        return _found(uow, owner, endpoint.id), secret


def new_secret() -> str:
    """32 random bytes in base64, after the specification's prefix."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def list_webhooks(uow: UnitOfWork, caller: Caller) -> list[WebhookEndpoint]:
    owner = _owner(caller)
    with uow:
        return uow.webhooks.all(owner)


def get_webhook(endpoint_id: str, uow: UnitOfWork, caller: Caller) -> WebhookEndpoint:
    owner = _owner(caller)
    with uow:
        return _found(uow, owner, endpoint_id)


def _found(uow: UnitOfWork, owner: str, endpoint_id: str) -> WebhookEndpoint:
    endpoint = uow.webhooks.get(owner, endpoint_id)
    if endpoint is None:  # (another key's endpoint is no more found than a missing one)
        raise WebhookNotFound(f"no webhook endpoint {endpoint_id[:40]!r}")
    return endpoint


def update_webhook(cmd: UpdateWebhook, uow: UnitOfWork, caller: Caller,
                   sender: WebhookSender) -> WebhookEndpoint:
    owner = _owner(caller)
    url = None if cmd.url is None else _checked_url(cmd.url, sender)
    types = None if cmd.event_types is None else _checked_types(cmd.event_types)
    _checked_description(cmd.description)
    with uow:
        endpoint = _found(uow, owner, cmd.webhook_id)
        changed = replace(endpoint, url=url or endpoint.url,
                          event_types=types or endpoint.event_types,
                          description=(endpoint.description if cmd.description is None
                                       else cmd.description),
                          enabled=endpoint.enabled if cmd.enabled is None else cmd.enabled)
        uow.webhooks.update(changed)
        uow.commit()
        return _found(uow, owner, cmd.webhook_id)


def rotate_secret(endpoint_id: str, uow: UnitOfWork, caller: Caller,
                  vault: Secrets) -> tuple[WebhookEndpoint, str]:
    """A new signing secret, shown once; attempts from now on are signed with it."""
    owner, secret = _owner(caller), new_secret()
    with uow:
        endpoint = _found(uow, owner, endpoint_id)
        uow.webhooks.update(endpoint, vault.seal(secret))
        uow.commit()
    return endpoint, secret


def delete_webhook(endpoint_id: str, uow: UnitOfWork, caller: Caller) -> None:
    owner = _owner(caller)
    with uow:
        if not uow.webhooks.delete(owner, endpoint_id):
            raise WebhookNotFound(f"no webhook endpoint {endpoint_id[:40]!r}")
        uow.commit()


def list_attempts(endpoint_id: str, limit: int, cursor: str | None, uow: UnitOfWork,
                  caller: Caller) -> list[AttemptRecord]:
    """Up to ``limit`` attempts, newest first, older than the one ``cursor`` names (the
    ``attempt_cursor`` of the last one of the page before)."""
    owner = _owner(caller)
    before = None if cursor is None else _attempt_before(cursor)
    with uow:
        _found(uow, owner, endpoint_id)
        return uow.webhooks.attempts(endpoint_id, limit, before)


def attempt_cursor(attempt: AttemptRecord) -> str:
    return str(attempt.id)


def _attempt_before(cursor: str) -> int:
    if not (cursor.isascii() and cursor.isdigit() and len(cursor) <= 18):
        raise BadCursor("this cursor was not issued by this service")
    return int(cursor)


# -- delivery -------------------------------------------------------------------------

def deliver(message_id: int, hand: int, uow: UnitOfWork, sender: WebhookSender,
            vault: Secrets, policy: WebhookPolicy) -> str:
    """One attempt at the message, if this hand-over still holds it; what became of it.
    Safe to run twice: the second copy of a hand-over finds the message taken."""
    with uow:
        delivery = uow.webhooks.start(message_id, hand, policy.lease_s)
        uow.commit()
    if delivery is None:
        return "not ours"
    answer = _attempted(delivery, sender, vault)
    with uow:  # a failure judged on the endpoint's health now (another attempt may have
        # ended since); a success needs no health to be judged (and holds nothing)
        failing = None if answer.ok else uow.webhooks.failing_since(delivery.endpoint.id)
        outcome = judge(replace(delivery, endpoint=replace(delivery.endpoint,
                                                           failing_since=failing)),
                        answer, policy)
        uow.webhooks.finish(delivery, answer, outcome)
        uow.commit()
    return outcome.state


def _attempted(delivery: Delivery, sender: WebhookSender, vault: Secrets) -> Answer:
    """The attempt's answer. What fails on this side (a secret no key opens any more, a
    host the sender cannot write) is a failed attempt too: the message keeps its
    schedule and ends, instead of coming back after every lease."""
    try:
        return sender.send(delivery.endpoint.url, delivery.webhook_id, body(delivery),
                           vault.open(delivery.sealed_secret))
    except Exception as error:  # noqa: BLE001 - see above
        log.exception("webhook message %s not attempted", delivery.webhook_id)
        return Answer(None, 0, f"not attempted: {type(error).__name__}")


def judge(delivery: Delivery, answer: Answer, policy: WebhookPolicy) -> Outcome:
    """What an attempt's answer makes of the message and its endpoint: a 2xx delivers
    it; 410 Gone disables the endpoint; anything else tries again after the policy's
    next pause, and disables an endpoint that has failed for ``disable_after_s``."""
    if answer.ok:
        return Outcome("delivered", None, None)
    since = delivery.endpoint.failing_since or delivery.now
    if answer.status_code == 410:
        return Outcome("failed", None, since, "the endpoint answered 410 Gone")
    if (delivery.now - since).total_seconds() >= policy.disable_after_s:
        return Outcome("failed", None, since,
                       f"every attempt failed since {since.isoformat()}")
    pauses = policy.retry_s
    if delivery.attempt > len(pauses):
        return Outcome("failed", None, since)
    return Outcome("pending", pauses[delivery.attempt - 1], since)


def prune(uow: UnitOfWork, policy: WebhookPolicy) -> int:
    """Forget settled messages older than the policy keeps them; how many."""
    with uow:
        pruned = uow.webhooks.prune(policy.keep_s)
        uow.commit()
    return pruned
