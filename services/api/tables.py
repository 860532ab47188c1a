"""The table routes: joining by invite, starting early, cancelling, rotating the invite,
leaving, rematches, and a player's games (docs/lobby.md). Each parses, calls one service
function, renders."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import current_app

from services.api.auth import Keys, bearer_token
from services.api.render import game_json, summary_json
from services.api.schemas import (
    GamesOut, GamesQuery, GameOut, InviteOut, JoinIn, SeatedOut, StartIn, problems,
)
from services.commands import Join, Start
from services.container import Container
from services.domain import Caller
from services.errors import BadToken
from services.handlers.players import player_games
from services.handlers.tables import Seated, cancel, join, leave, new_invite, rematch, start

tables = APIBlueprint("tables", __name__, url_prefix="/v1", tag="Tables")
SEAT: list[str | dict[str, list[Any]]] = [{"BearerAuth": []}]
HOST: list[str | dict[str, list[Any]]] = [{"BearerAuth": []}, {"ApiKeyAuth": []}]
KEY: list[str | dict[str, list[Any]]] = [{"ApiKeyAuth": []}]
TAGS = ["Tables"]
GAME = "/games/<string:game_id>"


def _services() -> Container:
    container: Container = current_app.extensions["president"]
    return container


def _caller(token: str | None) -> Caller:
    keys: Keys = current_app.extensions["president.keys"]
    return keys.caller(token_call=token is not None)


def _token() -> str:
    token = bearer_token()
    if token is None:
        raise BadToken("send the seat's token as 'Authorization: Bearer <token>'")
    return token


def _seated(seated: Seated) -> dict[str, Any]:
    return {"game": game_json(seated.game), "seat": seated.seat, "token": seated.token}


@tables.post("/join")
@tables.input(JoinIn)
@tables.output(SeatedOut, status_code=201)
@tables.doc(operation_id="joinGame", tags=TAGS, security=KEY,
            summary="Take a free seat of the game an invite code opens: its token, once",
            responses=problems(400, 401, 403, 404, 409))
def post_join(json_data: JoinIn) -> dict[str, Any]:
    return _seated(join(Join(json_data.code, json_data.player_id, json_data.name),
                        _services().uow(), _caller(None)))


@tables.post(f"{GAME}/start")
@tables.input(StartIn)
@tables.output(GameOut)
@tables.doc(operation_id="startGame", tags=TAGS, security=HOST,
            summary="Start a waiting game now, its open seats played by an AI level",
            responses=problems(400, 401, 403, 404, 409))
def post_start(game_id: str, json_data: StartIn) -> dict[str, Any]:
    services, token = _services(), bearer_token()
    return game_json(start(Start(game_id, token, json_data.fill), services.uow(),
                           _caller(token), services.engines))


@tables.post(f"{GAME}/cancel")
@tables.output(GameOut)
@tables.doc(operation_id="cancelGame", tags=TAGS, security=HOST,
            summary="Cancel a waiting game", responses=problems(401, 403, 404, 409))
def post_cancel(game_id: str) -> dict[str, Any]:
    token = bearer_token()
    return game_json(cancel(game_id, token, _services().uow(), _caller(token)))


@tables.post(f"{GAME}/invite")
@tables.output(InviteOut, status_code=201)
@tables.doc(operation_id="rotateInvite", tags=TAGS, security=HOST,
            summary="A new invite code for a waiting game (the old one stops working)",
            responses=problems(401, 403, 404, 409))
def post_invite(game_id: str) -> dict[str, Any]:
    token = bearer_token()
    return {"invite": new_invite(game_id, token, _services().uow(), _caller(token))}


@tables.post(f"{GAME}/leave")
@tables.output(GameOut)
@tables.doc(operation_id="leaveGame", tags=TAGS, security=SEAT,
            summary="Leave: the game's takeover AI plays the seat for the rest of the series",
            responses=problems(401, 404, 409))
def post_leave(game_id: str) -> dict[str, Any]:
    token = _token()
    caller = _caller(token)  # a key sent along must be a live one
    return game_json(leave(game_id, token, _services().uow(), caller))


@tables.post(f"{GAME}/rematch")
@tables.output(SeatedOut, status_code=201)
@tables.doc(operation_id="rematch", tags=TAGS, security=SEAT,
            summary="Once the series is over: the next one, same rules and seats (made by "
            "the first seat to ask, joined by the others); this seat's new token, once",
            responses=problems(401, 404, 409))
def post_rematch(game_id: str) -> dict[str, Any]:
    token = _token()
    return _seated(rematch(game_id, token, _services().uow(), _caller(token)))


@tables.get("/players/<string(maxlength=64):player_id>/games")
@tables.input(GamesQuery, location="query")
@tables.output(GamesOut)
@tables.doc(operation_id="listPlayerGames", tags=["History"], security=KEY,
            summary="A player's games (the key's own players), newest first, by status",
            responses=problems(400, 401, 403, 404))
def get_player_games(player_id: str, query_data: GamesQuery) -> dict[str, Any]:
    games, cursor = player_games(player_id, query_data.status, query_data.limit,
                                 query_data.cursor, _services().uow(), _caller(None))
    return {"games": [summary_json(g) for g in games], "next_cursor": cursor}
