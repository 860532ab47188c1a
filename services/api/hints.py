"""The hint route (docs/api.md#hints): what an AI level would play now from the token's
seat. It parses, checks the hint limits, calls one service function, renders."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import Response, current_app

from config.settings import defaulted
from services.api.auth import Keys, bearer_token
from services.api.limits import per_seat_and_owner
from services.api.schemas import HintIn, HintOut, problems
from services.container import Container
from services.domain import Hint
from services.errors import BadToken, HintsForbidden
from services.handlers.hints import hint

hints = APIBlueprint("hints", __name__, url_prefix="/v1", tag="AI")
SEAT: list[str | dict[str, list[Any]]] = [{"BearerAuth": []}]


def hint_json(found: Hint) -> dict[str, Any]:
    return {"level": found.level, "action": found.action,
            "candidates": [{"action": c.action, "expected_points": c.expected_points,
                            "simulations": c.simulations} for c in found.candidates]}


@hints.post("/games/<string:game_id>/hint")
@hints.input(HintIn)
@hints.output(HintOut)
@hints.doc(operation_id="getHint", tags=["AI"], security=SEAT,
           summary="What an AI level would play now from the token's seat (Hard and Expert: "
           "each play they weighed, its expected points and simulations); nothing is played",
           responses=problems(400, 401, 403, 404, 409, 429, 503))
def post_hint(game_id: str, json_data: HintIn) -> dict[str, Any] | Response:
    services: Container = current_app.extensions["president"]
    keys: Keys = current_app.extensions["president.keys"]
    token = bearer_token()
    if token is None:
        raise BadToken("send the seat's token as 'Authorization: Bearer <token>'")
    caller = keys.caller(token_call=True)
    if services.adviser is None:
        raise HintsForbidden("this service gives no hints")
    refused = per_seat_and_owner("hint", game_id, token, caller,
                                 defaulted("PRESIDENT_HINTS_RATE_SEAT"),
                                 defaulted("PRESIDENT_HINTS_RATE_KEY"))
    if refused is not None:
        return refused
    return hint_json(hint(game_id, token, json_data.level, json_data.budget_ms,
                          json_data.seed, services.reads, services.uow, services.adviser,
                          caller=caller))
