"""The matchmaking routes (docs/ratings.md#matchmaking): a ticket opened, followed (and
long-polled), cancelled. Each parses, calls one service function, renders."""

from __future__ import annotations

from typing import Any, Iterator

import json
import time

from apiflask import APIBlueprint
from flask import Response, current_app, stream_with_context

from config.settings import defaulted

from services.api import draining
from services.api.auth import Keys
from services.api.schemas import TicketIn, TicketOut, TicketQuery, problems
from services.api.streams import ticket_slot
from services.commands import OpenTicket
from services.container import Container
from services.domain import Caller, Ticket
from services.errors import TicketNotFound
from services.handlers.matchmaking import (
    cancel_ticket, open_ticket, read_ticket, wait_for_ticket,
)
from services.ports import Secrets

matchmaking = APIBlueprint("matchmaking", __name__, url_prefix="/v1/matchmaking",
                           tag="Matchmaking")
KEY: list[str | dict[str, list[Any]]] = [{"ApiKeyAuth": []}]
TAGS = ["Matchmaking"]
TICKET = "/tickets/<string(length=32):ticket_id>"
HEARTBEAT_S = 15.0


def _services() -> tuple[Container, Caller, Secrets]:
    container: Container = current_app.extensions["president"]
    keys: Keys = current_app.extensions["president.keys"]
    if container.webhooks is None:  # (where seat tokens are sealed until shown)
        raise TicketNotFound("this service runs no matchmaking")
    return container, keys.caller(token_call=False), container.webhooks.vault


def ticket_json(ticket: Ticket, token: str | None = None) -> dict[str, Any]:
    return {"id": ticket.id, "player_id": ticket.player, "preset": ticket.preset,
            "players": ticket.players, "pool": ticket.pool, "state": ticket.state,
            "created_at": ticket.created_at.isoformat(),
            "expires_at": ticket.expires_at.isoformat(), "game_id": ticket.game_id,
            "seat": ticket.seat, "token": token}


@matchmaking.post("/tickets")
@matchmaking.input(TicketIn)
@matchmaking.output(TicketOut, status_code=201)
@matchmaking.doc(operation_id="openTicket", tags=TAGS, security=KEY,
                 summary="A key's player asks for a table: matched with players of close "
                 "rating, or completed with AI once its wait is over",
                 responses=problems(400, 401, 403, 409, 429))
def post_ticket(json_data: TicketIn) -> dict[str, Any]:
    services, caller, _ = _services()
    ticket = open_ticket(
        OpenTicket(
            player=json_data.player_id,
            preset=json_data.preset,
            players=json_data.players,
            wait_s=json_data.wait_s,
            fill=json_data.fill,
            seed=json_data.seed,
        ),
        services.uow(),
        caller,
        services.engines,
        services.ratings,
    )
    if services.matcher is not None:
        services.matcher.poke()
    return ticket_json(ticket)


@matchmaking.get(TICKET)
@matchmaking.input(TicketQuery, location="query")
@matchmaking.output(TicketOut)
@matchmaking.doc(operation_id="getTicket", tags=TAGS, security=KEY,
                 summary="A ticket; with wait=S, held until it is matched; once matched, "
                 "its game, seat and that seat's token (in the first answer only)",
                 responses=problems(400, 401, 404, 429))
def get_ticket(ticket_id: str, query_data: TicketQuery) -> dict[str, Any]:
    services, caller, vault = _services()
    give_back = ticket_slot(ticket_id) if query_data.wait else (lambda: None)
    try:  # (a long poll holds one of the client's stream slots while it waits)
        ticket, token = wait_for_ticket(ticket_id, query_data.wait, services.uow, caller,
                                        vault, draining.stopping.is_set)
    finally:
        give_back()
    return ticket_json(ticket, token)


@matchmaking.get(f"{TICKET}/stream")
@matchmaking.doc(operation_id="streamTicket", tags=TAGS, security=KEY,
                 summary="A ticket as Server-Sent Events: each state it takes (a ticket "
                 "event), the seat's token with the match; the stream ends with it",
                 responses={200: {"description": "text/event-stream",
                                  "content": {"text/event-stream": {}}},
                            **problems(401, 404, 429)})
def stream_ticket(ticket_id: str) -> Response:
    services, caller, vault = _services()
    give_back = ticket_slot(ticket_id)  # held until the response is closed
    try:  # (its one-time token is spent only once the stream has its slot)
        first, token = read_ticket(ticket_id, services.uow(), caller, vault)  # 404 up front
    except Exception:
        give_back()
        raise
    uow, ends = services.uow, time.monotonic() + float(defaulted("PRESIDENT_STREAM_MAX_S"))

    def stream() -> Iterator[str]:
        ticket, shown = first, token
        yield f"event: ticket\ndata: {json.dumps(ticket_json(ticket, shown))}\n\n"
        while ticket.state == "waiting" and time.monotonic() < ends \
                and not draining.stopping.is_set():
            ticket, shown = wait_for_ticket(ticket_id, HEARTBEAT_S, uow, caller, vault,
                                            draining.stopping.is_set)
            if ticket.state == "waiting":
                yield ": keep-alive\n\n"
            else:
                yield f"event: ticket\ndata: {json.dumps(ticket_json(ticket, shown))}\n\n"

    response = Response(stream_with_context(stream()), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(give_back)
    return response


@matchmaking.delete(TICKET)
@matchmaking.output(TicketOut)
@matchmaking.doc(operation_id="cancelTicket", tags=TAGS, security=KEY,
                 summary="Cancel a waiting ticket", responses=problems(401, 404, 409))
def delete_ticket(ticket_id: str) -> dict[str, Any]:
    services, caller, _ = _services()
    return ticket_json(cancel_ticket(ticket_id, services.uow(), caller))
