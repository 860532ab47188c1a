"""The webhook routes: a client key's endpoints and their delivery attempts. Each parses,
calls one service function, renders."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response, current_app

from services.api.auth import Keys
from services.api.schemas import (
    DeliveriesOut, DeliveriesQuery, WebhookIn, WebhookOut, WebhookPatchIn, WebhookSecretOut,
    WebhooksOut, problems,
)
from services.commands import RegisterWebhook, UpdateWebhook
from services.container import Container, Webhooks
from services.domain import AttemptRecord, Caller, WebhookEndpoint
from services.errors import WebhookNotFound
from services.handlers.webhooks import (
    attempt_cursor, delete_webhook, get_webhook, list_attempts, list_webhooks, register,
    rotate_secret, update_webhook,
)

hooks = APIBlueprint("webhooks", __name__, url_prefix="/v1/webhooks", tag="Webhooks")
KEY: list[str | dict[str, list[Any]]] = [{"ApiKeyAuth": []}]
ID = "<string(maxlength=32):webhook_id>"  # (shorter: no such endpoint)
TAGS = ["Webhooks"]


def _services() -> tuple[Container, Webhooks, Caller]:
    container: Container = current_app.extensions["president"]
    keys: Keys = current_app.extensions["president.keys"]
    if container.webhooks is None:
        raise WebhookNotFound("this service sends no webhooks")
    return container, container.webhooks, keys.caller(token_call=False)


def endpoint_json(endpoint: WebhookEndpoint) -> dict[str, Any]:
    return {"id": endpoint.id, "url": endpoint.url, "event_types": list(endpoint.event_types),
            "description": endpoint.description, "enabled": endpoint.enabled,
            "disabled_reason": endpoint.disabled_reason,
            "failing_since": None if endpoint.failing_since is None
            else endpoint.failing_since.isoformat(),
            "created_at": None if endpoint.created_at is None
            else endpoint.created_at.isoformat()}


def attempt_json(attempt: AttemptRecord) -> dict[str, Any]:
    return {"attempt_id": attempt.id, "webhook_id": attempt.webhook_id, "type": attempt.type,
            "attempted_at": attempt.attempted_at.isoformat(),
            "status_code": attempt.status_code, "latency_ms": attempt.latency_ms,
            "error": attempt.error, "message_state": attempt.state}


@hooks.post("")
@hooks.input(WebhookIn)
@hooks.output(WebhookSecretOut, status_code=201)
@hooks.doc(operation_id="createWebhook", tags=TAGS, security=KEY,
           responses=problems(400, 401, 403, 409),
           summary="Register an endpoint: its signing secret is shown once")
def post_webhook(json_data: WebhookIn) -> dict[str, Any]:
    container, webhooks, caller = _services()
    endpoint, secret = register(
        RegisterWebhook(json_data.url, tuple(json_data.event_types), json_data.description),
        container.uow(), caller, webhooks.sender, webhooks.vault, webhooks.policy)
    return {"webhook": endpoint_json(endpoint), "secret": secret}


@hooks.get("")
@hooks.output(WebhooksOut)
@hooks.doc(operation_id="listWebhooks", tags=TAGS, security=KEY,
           responses=problems(401, 403),
           summary="The key's endpoints")
def get_webhooks() -> dict[str, Any]:
    container, _, caller = _services()
    return {"webhooks": [endpoint_json(e) for e in list_webhooks(container.uow(), caller)]}


@hooks.get(f"/{ID}")
@hooks.output(WebhookOut)
@hooks.doc(operation_id="getWebhook", tags=TAGS, security=KEY,
           responses=problems(401, 403, 404),
           summary="An endpoint, and whether the service disabled it and why")
def get_one(webhook_id: str) -> dict[str, Any]:
    container, _, caller = _services()
    return endpoint_json(get_webhook(webhook_id, container.uow(), caller))


@hooks.patch(f"/{ID}")
@hooks.input(WebhookPatchIn)
@hooks.output(WebhookOut)
@hooks.doc(operation_id="updateWebhook", tags=TAGS, security=KEY,
           responses=problems(400, 401, 403, 404),
           summary="Change an endpoint's URL, types or description; enable it again")
def patch_webhook(webhook_id: str, json_data: WebhookPatchIn) -> dict[str, Any]:
    container, webhooks, caller = _services()
    types = None if json_data.event_types is None else tuple(json_data.event_types)
    return endpoint_json(update_webhook(
        UpdateWebhook(webhook_id, json_data.url, types, json_data.description,
                      json_data.enabled), container.uow(), caller, webhooks.sender))


@hooks.post(f"/{ID}/rotate-secret")
@hooks.output(WebhookSecretOut)
@hooks.doc(operation_id="rotateWebhookSecret", tags=TAGS, security=KEY,
           responses=problems(401, 403, 404),
           summary="A new signing secret, shown once; every attempt from now on uses it")
def post_rotate(webhook_id: str) -> dict[str, Any]:
    container, webhooks, caller = _services()
    endpoint, secret = rotate_secret(webhook_id, container.uow(), caller, webhooks.vault)
    return {"webhook": endpoint_json(endpoint), "secret": secret}


@hooks.delete(f"/{ID}")
@hooks.output({}, status_code=204)
@hooks.doc(operation_id="deleteWebhook", tags=TAGS, security=KEY,
           responses=problems(401, 403, 404),
           summary="Delete an endpoint, with its messages and their attempts")
def delete_one(webhook_id: str) -> Response:
    container, _, caller = _services()
    delete_webhook(webhook_id, container.uow(), caller)
    return Response(status=204)


@hooks.get(f"/{ID}/deliveries")
@hooks.input(DeliveriesQuery, location="query")
@hooks.output(DeliveriesOut)
@hooks.doc(operation_id="listWebhookDeliveries", tags=TAGS, security=KEY,
           responses=problems(400, 401, 403, 404),
           summary="Delivery attempts, newest first: status, latency, the answer's code")
def get_deliveries(webhook_id: str, query_data: DeliveriesQuery) -> dict[str, Any]:
    container, _, caller = _services()
    attempts = list_attempts(webhook_id, query_data.limit + 1, query_data.cursor,
                             container.uow(), caller)
    page = attempts[:query_data.limit]
    more = len(attempts) > query_data.limit
    return {"deliveries": [attempt_json(a) for a in page],
            "next_cursor": attempt_cursor(page[-1]) if more else None}
