"""What ``/openapi.json`` says beyond what apiflask generates from the routes: the
problem schema every error uses, the headers the routes read, the tags they use."""

from __future__ import annotations

from typing import Any

from apiflask import APIFlask

from services.api.schemas import Problem, problems

TAGS = [
    {"name": "Games", "description": "create games, read them as a seat or a spectator, play"},
    {"name": "Tables", "description": "open seats and invites, joining, starting early, "
                                      "cancelling, leaving, rematches (docs/lobby.md)"},
    {"name": "Ratings", "description": "leaderboards, players' ratings and figures "
                                       "(docs/ratings.md)"},
    {"name": "Matchmaking", "description": "a table found for a key's player: people of "
                                           "close rating, AI for the seats left"},
    {"name": "AI", "description": "hints: what an AI level would play from a seat's view"},
    {"name": "History", "description": "games, finished rounds and replays"},
    {"name": "Rules", "description": "presets and every rules option"},
    {"name": "Webhooks", "description": "endpoints a client key's games call, signed "
                                        "(Standard Webhooks), and their delivery attempts"},
    {"name": "Operations", "description": "liveness and readiness"},
]
# Request headers, by (path, method): apiflask declares bodies and query strings only.
HEADERS: dict[tuple[str, str], list[dict[str, Any]]] = {
    ("/v1/games/{game_id}/actions", "post"): [{
        "name": "Idempotency-Key", "in": "header", "required": False,
        "schema": {"type": "string", "maxLength": 128},
        "description": "a retry with the same key, action and version answers the first "
                       "result and plays nothing; the same key with another action or "
                       "version: 422 idempotency_key_reused"}],
    ("/v1/games/{game_id}/events/stream", "get"): [
        {"name": "Last-Event-ID", "in": "header", "required": False,
         "schema": {"type": "string", "pattern": "^[0-9]{1,10}$"},
         "description": "resume after this event number (what EventSource sends)"},
        {"name": "after", "in": "query", "required": False,
         "schema": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
         "description": "start after this event number, when no Last-Event-ID is sent"}],
}

# What a 429 says of where the caller stands (services/api/limits.py).
RATE_HEADERS = {name: {"schema": {"type": "integer"}, "description": text} for name, text in (
    ("Retry-After", "seconds to wait (a rate limit)"),
    ("RateLimit-Limit", "requests allowed in the window"),
    ("RateLimit-Remaining", "requests left in the window"),
    ("RateLimit-Reset", "seconds until the window starts again"))}
TOO_MANY = {
    "description": "over the caller's rate limit, or its quota of games under way",
    "headers": RATE_HEADERS,
    "content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}},
}


def install(app: APIFlask, keys_required: bool) -> None:
    """``keys_required``: the service runs with ``PRESIDENT_AUTH=keys``; otherwise every
    credential the document names is optional, and it says so (an empty requirement)."""
    app.config.update(TAGS=TAGS, AUTO_OPERATION_ID=True, AUTO_404_RESPONSE=False,
                      AUTO_VALIDATION_ERROR_RESPONSE=False, AUTO_AUTH_ERROR_RESPONSE=False)

    @app.spec_processor
    def complete(spec: dict[Any, Any] | str) -> dict[Any, Any] | str:
        assert isinstance(spec, dict)  # (a str only with SPEC_PROCESSOR_PASS_OBJECT)
        schemas = spec.setdefault("components", {}).setdefault("schemas", {})
        schemas["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
        _one_name_per_model(spec)
        if not keys_required:
            for operation in (op for item in spec["paths"].values() for op in item.values()):
                if operation.get("security"):
                    operation["security"] = [*operation["security"], {}]
        for path, item in spec["paths"].items():  # every /v1 call is counted (limits)
            for operation in item.values() if path.startswith("/v1/") else ():
                operation["responses"]["429"] = TOO_MANY
                if "requestBody" in operation:  # any body past the cap (app.MAX_BODY_BYTES)
                    operation["responses"].setdefault("413", problems(413)[413])
        for item in spec["paths"].values():  # a body not application/json (app._json_bodies)
            for operation in item.values():
                if "application/json" in operation.get("requestBody", {}).get("content", {}):
                    operation["responses"].setdefault("415", problems(415)[415])
        for (path, method), headers in HEADERS.items():
            operation = spec["paths"][path][method]
            operation["parameters"] = [*operation.get("parameters", []), *headers]
        return spec


def _one_name_per_model(spec: dict[str, Any]) -> None:
    """apiflask names a nested model after each model it is met in ("GameOut.ViewOut",
    "CreatedOut.ViewOut"): one model, two names, which client generators take for two
    models of one name. Each gets its own name once ("ViewOut")."""
    schemas = spec["components"]["schemas"]
    renamed = {f"#/components/schemas/{name}": f"#/components/schemas/{name.rsplit('.', 1)[1]}"
               for name in schemas if "." in name}

    def rewrite(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("$ref") in renamed:
                node["$ref"] = renamed[node["$ref"]]
            for value in node.values():
                rewrite(value)
        elif isinstance(node, list):
            for value in node:
                rewrite(value)

    rewrite(spec)  # the references first: the copies then read alike
    for name in [n for n in schemas if "." in n]:
        short = name.rsplit(".", 1)[1]
        schema = schemas.pop(name)
        if schemas.setdefault(short, schema) != schema:
            raise ValueError(f"two different models are named {short}")
