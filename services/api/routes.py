"""The v1 routes: each parses, calls one service function, renders."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import current_app, request

from services.api.render import game_json, rules_json
from services.api.schemas import ActIn, CreatedOut, CreateGameIn, GameOut, RulesOut
from services.commands import Act, CreateGame, ReadGame, SeatSpec
from services.container import Container
from services.errors import BadToken
from services.handlers import act, create_game, read_game

v1 = APIBlueprint("v1", __name__, url_prefix="/v1", tag="Games")
BEARER = [{"BearerAuth": []}]


def _services() -> Container:
    container: Container = current_app.extensions["president"]
    return container


def _token(required: bool) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    if header or required:
        raise BadToken("send the seat's token as 'Authorization: Bearer <token>'")
    return None


@v1.get("/rules")
@v1.output(RulesOut)
@v1.doc(summary="Presets and every rules option", tags=["Rules"])
def get_rules() -> dict[str, Any]:
    return rules_json()


@v1.post("/games")
@v1.input(CreateGameIn)
@v1.output(CreatedOut, status_code=201)
@v1.doc(summary="Create a game: one secret token per human seat, shown once")
def post_game(json_data: CreateGameIn) -> dict[str, Any]:
    services = _services()
    created = create_game(
        CreateGame(json_data.preset, tuple(SeatSpec(s.kind, s.engine) for s in json_data.seats),
                   dict(json_data.options), json_data.rounds, json_data.seed),
        services.uow(), services.scheduler, services.engines)
    return {"game": game_json(created.game),
            "tokens": {str(seat): token for seat, token in created.tokens.items()}}


@v1.get("/games/<string:game_id>")
@v1.output(GameOut)
@v1.doc(summary="A game: the seat's view with its token, the spectator's view without",
        security=BEARER)
def get_game(game_id: str) -> dict[str, Any]:
    return game_json(read_game(ReadGame(game_id, _token(required=False)), _services().uow()))


@v1.post("/games/<string:game_id>/actions")
@v1.input(ActIn)
@v1.output(GameOut)
@v1.doc(summary="Play cards, pass or give back exchange cards, as the token's seat",
        security=BEARER)
def post_action(game_id: str, json_data: ActIn) -> dict[str, Any]:
    services = _services()
    token = _token(required=True)
    assert token is not None
    return game_json(act(Act(game_id, token, json_data.action, json_data.version),
                         services.uow(), services.scheduler))
