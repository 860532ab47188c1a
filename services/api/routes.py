"""The v1 routes: each parses, calls one service function, renders."""

from __future__ import annotations

import json
import re
import time
from typing import Any, Callable, Iterator

from apiflask import APIBlueprint
from flask import Response, current_app, request, stream_with_context

from config.settings import defaulted
from services.api import draining
from services.api.auth import Keys, bearer_token
from services.api.streams import slot
from services.api.render import (
    Rendered, cached_for_good, event_json, game_json, game_response, rounds_json, rules_json,
    summary_json,
)
from services.api.schemas import (
    ActIn, CreatedOut, CreateGameIn, EventsOut, EventsQuery, ExportQuery, GameOut, GamesOut,
    GamesQuery, ReplayOut, RoundsOut, RulesOut, problems,
)
from services.commands import Act, CreateGame, ReadGame, SeatSpec
from services.container import Container
from services.domain import LARGEST_NUMBER, Caller
from services.errors import BadEventNumber, BadIdempotencyKey, BadToken
from services.handlers.events import events_after, round_events, series_over, wait_for_events
from services.handlers.export import export
from services.handlers.games import create_game, list_games, read_game
from services.handlers.moves import act
from services.handlers.presence import Presence

HEARTBEAT_S = 15.0
KEY_LENGTH = 128  # an Idempotency-Key's characters at most
EVENT_NUMBER = re.compile(r"[0-9]{1,10}")

v1 = APIBlueprint("v1", __name__, url_prefix="/v1", tag="Games")
# The type of apiflask's doc(security=...): a list (invariant) of names or {scheme: scopes}.
# A seat token, or a client key, or both (``auth``).
BEARER: list[str | dict[str, list[Any]]] = [{"BearerAuth": []}, {"ApiKeyAuth": []}]
KEY: list[str | dict[str, list[Any]]] = [{"ApiKeyAuth": []}]


def _services() -> Container:
    container: Container = current_app.extensions["president"]
    return container


def _rendered() -> Rendered:
    rendered: Rendered = current_app.extensions["president.rendered"]
    return rendered


def _caller(token: str | None) -> Caller:
    """The client key of the request, if any (``auth``); a seat token is credential
    enough for that seat's own calls."""
    keys: Keys = current_app.extensions["president.keys"]
    return keys.caller(token_call=token is not None)


def _heard(game_id: str, token: str | None, caller: Caller) -> bool:
    """A seat token's request has succeeded: its human is connected
    (``handlers.presence``); whether that was news (a seat change written). Called only
    after the request's own work: a refused request writes nothing."""
    return _hearing()(game_id, token, caller)


def _hearing() -> Callable[[str, str | None, Caller], bool]:
    """``_heard`` for a stream's generator, which runs outside the request's context."""
    presence: Presence = current_app.extensions["president.presence"]
    reads = _services().reads

    def heard(game_id: str, token: str | None, caller: Caller) -> bool:
        return token is not None and presence.heard(
            game_id, token, lambda: read_game(ReadGame(game_id, token), reads, caller=caller))

    return heard


def _event_number(text: str | None, name: str) -> int:
    """An event number from a header or the query string: digits, at most the largest."""
    if text is None or text == "":
        return 0
    if not EVENT_NUMBER.fullmatch(text) or int(text) > LARGEST_NUMBER:
        raise BadEventNumber(f"{name} is an event number, 0 to {LARGEST_NUMBER}, "
                             f"not {text[:40]!r}")
    return int(text)


def _token(required: bool) -> str | None:
    token = bearer_token()
    if token is None and (required or request.headers.get("Authorization")):
        raise BadToken("send the seat's token as 'Authorization: Bearer <token>'")
    return token


@v1.get("/rules")
@v1.output(RulesOut)
@v1.doc(operation_id="getRules",
        summary="Presets and every rules option", tags=["Rules"], responses=problems(400))
def get_rules() -> dict[str, Any]:
    return rules_json()


@v1.post("/games")
@v1.input(CreateGameIn)
@v1.output(CreatedOut, status_code=201)
@v1.doc(operation_id="createGame", tags=["Games"],
        summary="Create a game: one secret token per human seat, shown once; with open "
        "seats, an invite code",
        security=KEY, responses=problems(400, 401, 403, 413))
def post_game(json_data: CreateGameIn) -> dict[str, Any]:
    services, caller = _services(), _caller(None)
    created = create_game(
        CreateGame(
            preset=json_data.preset,
            seats=tuple(SeatSpec(s.kind, s.engine, s.player_id, s.name) for s in json_data.seats),
            options=dict(json_data.options),
            rounds=json_data.rounds,
            seed=json_data.seed,
            pace_ms=json_data.pace_ms,
            turn_timeout_ms=json_data.turn_timeout_ms,
            visibility=json_data.visibility,
            takeover=json_data.takeover,
            hints=json_data.hints,
        ),
        services.uow(),
        services.engines,
        services.defaults,
        caller,
        services.draw,
    )
    return {"game": game_json(created.game),
            "tokens": {str(seat): token for seat, token in created.tokens.items()},
            "invite": created.invite}


@v1.get("/games/<string:game_id>")
@v1.output(GameOut)
@v1.doc(operation_id="getGame", tags=["Games"],
        summary="A game: the seat's view with its token, the spectator's view without",
        security=BEARER, responses={304: {"description": "If-None-Match names its ETag: "
                                          "unchanged since"}, **problems(400, 401, 404)})
def get_game(game_id: str) -> Response:
    token = _token(required=False)
    caller = _caller(token)
    view = read_game(ReadGame(game_id, token), _services().reads, caller=caller)
    if _heard(game_id, token, caller):  # the view then says it is connected
        view = read_game(ReadGame(game_id, token), _services().reads, caller=caller)
    return game_response(view, _rendered(), request.headers.get("If-None-Match"))


@v1.post("/games/<string:game_id>/actions")
@v1.input(ActIn)
@v1.output(GameOut)
@v1.doc(operation_id="playAction", tags=["Games"],
        summary="Play cards, pass or give back exchange cards, as the token's seat",
        security=BEARER, responses=problems(400, 401, 404, 409, 413, 422))
def post_action(game_id: str, json_data: ActIn) -> Response:
    services = _services()
    token = _token(required=True)
    assert token is not None
    caller = _caller(token)  # a key sent along must be a live one
    key = request.headers.get("Idempotency-Key") or None
    if key is not None and (len(key) > KEY_LENGTH or not key.isprintable()):
        raise BadIdempotencyKey(f"an Idempotency-Key is at most {KEY_LENGTH} printable "
                                "characters")
    played = act(Act(game_id, token, json_data.action, json_data.version, key),
                 services.uow(), caller)
    _heard(game_id, token, caller)  # (a seat change: the version the client holds stands)
    return game_response(played, _rendered())


@v1.get("/games/<string:game_id>/events")
@v1.input(EventsQuery, location="query")
@v1.output(EventsOut)
@v1.doc(operation_id="getEvents", tags=["Games"],
        summary="Events after number N; with wait=S, hold the request until one comes",
        security=BEARER, responses=problems(400, 401, 404))
def get_events(game_id: str, query_data: EventsQuery) -> dict[str, Any]:
    token = _token(required=False)
    caller = _caller(token)
    if not query_data.wait:
        events, last = events_after(game_id, token, query_data.after, _services().reads,
                                    caller=caller)
        _heard(game_id, token, caller)
    else:  # a long poll holds a slot while it waits
        events_after(game_id, token, query_data.after, _services().reads, limit=1,
                     caller=caller)  # (refused before it is heard from, or holds a slot)
        _heard(game_id, token, caller)
        give_back = slot(game_id)
        try:
            events, last = wait_for_events(game_id, token, query_data.after, query_data.wait,
                                           _services().reads, caller, draining.stopping.is_set)
        finally:
            give_back()
    return {"events": [event_json(e) for e in events], "last": last}


@v1.get("/games/<string:game_id>/events/stream")
@v1.doc(operation_id="streamEvents", tags=["Games"],
        summary="The same events as Server-Sent Events; resumes after Last-Event-ID",
        security=BEARER, responses={200: {"description": "text/event-stream",
                                          "content": {"text/event-stream": {}}},
                                    **problems(400, 401, 404)})
def stream_events(game_id: str) -> Response:
    token = _token(required=False)
    last_id = request.headers.get("Last-Event-ID")
    after = (_event_number(last_id, "Last-Event-ID") if last_id is not None
             else _event_number(request.args.get("after"), "after"))
    reads, caller = _services().reads, _caller(token)
    events_after(game_id, token, after, reads, limit=1, caller=caller)  # 404 / 401 up front
    heard = _hearing()
    lifetime_s = float(defaulted("PRESIDENT_STREAM_MAX_S"))

    def stream() -> Iterator[str]:
        seen, quiet_since, ends = after, time.monotonic(), time.monotonic() + lifetime_s
        # Until its lifetime is out, or the process stops: then the client resumes with
        # Last-Event-ID (an EventSource does by itself), elsewhere.
        while time.monotonic() < ends and not draining.stopping.is_set():
            heard(game_id, token, caller)  # an open stream: its seat is connected
            events, last = wait_for_events(
                game_id, token, seen,
                min(HEARTBEAT_S - (time.monotonic() - quiet_since), ends - time.monotonic()),
                reads, caller, draining.stopping.is_set)
            for e in events:
                data = event_json(e)
                yield f"id: {e.seq}\nevent: {data['type']}\ndata: {json.dumps(data)}\n\n"
                seen, quiet_since = e.seq, time.monotonic()
            if seen >= last and series_over(game_id, reads):  # the client has every event
                return
            if time.monotonic() - quiet_since > HEARTBEAT_S:
                yield ": keep-alive\n\n"
                quiet_since = time.monotonic()

    give_back = slot(game_id)  # held until the response is closed, however that comes
    response = Response(stream_with_context(stream()), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(give_back)
    return response


@v1.get("/games")
@v1.input(GamesQuery, location="query")
@v1.output(GamesOut)
@v1.doc(operation_id="listGames",
        summary="The caller's games, newest first, by status, a page at a time (cursor)",
        tags=["History"], security=KEY, responses=problems(400, 401, 403))
def get_games(query_data: GamesQuery) -> dict[str, Any]:
    games, cursor = list_games(query_data.status, query_data.limit, query_data.cursor,
                               _services().uow(), _caller(None))
    return {"games": [summary_json(g) for g in games], "next_cursor": cursor}


@v1.get("/games/export")
@v1.input(ExportQuery, location="query")
@v1.doc(operation_id="exportGames", tags=["History"], security=KEY,
        summary="The key's finished series as ndjson, in the order they finished: rules, "
        "seed, seats and players, every round's deal, exchanges, actions, places, points",
        responses={200: {"description": "one series a line (docs/ratings.md#export)",
                         "content": {"application/x-ndjson": {}}},
                   **problems(400, 401, 403)})
def export_games(query_data: ExportQuery) -> Response:
    series = export(query_data.since, _services().uow, _caller(None))
    first = next(series, None)  # (a refusal is a problem, before the stream starts)

    def lines() -> Iterator[str]:
        if first is not None:
            yield json.dumps(first) + "\n"
            for one in series:
                yield json.dumps(one) + "\n"

    return Response(stream_with_context(lines()), mimetype="application/x-ndjson")


@v1.get("/games/<string:game_id>/rounds")
@v1.output(RoundsOut)
@v1.doc(operation_id="getRounds",
        summary="Finished rounds: places, roles, points, exchanges and action log",
        tags=["History"], security=BEARER, responses=problems(400, 401, 404))
def get_rounds(game_id: str) -> Response:
    token = _token(required=False)
    game = read_game(ReadGame(game_id, token), _services().reads, history=True,
                     caller=_caller(token))
    return cached_for_good({"rounds": rounds_json(game.view)}, game.status == "over")


@v1.get("/games/<string:game_id>/rounds/<int:round_no>/replay")
@v1.output(ReplayOut)
@v1.doc(operation_id="getReplay",
        summary="A round's replay: its events, as the caller may see them",
        tags=["History"], security=BEARER, responses=problems(400, 401, 404))
def get_replay(game_id: str, round_no: int) -> Response:
    token = _token(required=False)
    events = [event_json(e) for e in
              round_events(game_id, token, round_no, _services().reads, _caller(token))]
    return cached_for_good({"round": round_no, "events": events},
                           events[-1]["type"] in ("round_ended", "series_ended"))
