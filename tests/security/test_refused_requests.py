"""The party: a seat holder (or a stranger) sending every kind of bad request to a game —
wrong types, illegal and stale plays, reused idempotency keys, other seats' turns, bad
queries, bad tokens. Each is refused, and a refused request writes nothing: not a move,
not an event, not the seat's presence."""

from __future__ import annotations

import secrets
from typing import Any

from flask.testing import FlaskClient
from sqlalchemy import Engine, select

from played import bearer
from services.store.models import GameRow, SeatRow

AI = {"kind": "ai", "engine": "easy"}


def _written(db: Engine, game_id: str) -> tuple[Any, ...]:
    """Everything a request could write of a game: its counters and its seats' presence."""
    with db.connect() as c:
        game = c.execute(select(GameRow.version, GameRow.events, GameRow.seated,
                                GameRow.updated_at).where(GameRow.id == game_id)).one()
        seats = c.execute(select(SeatRow.seat, SeatRow.connected, SeatRow.seen_at)
                          .where(SeatRow.game_id == game_id).order_by(SeatRow.seat)).all()
    return tuple(game), tuple(map(tuple, seats))


def _acting(client: FlaskClient) -> tuple[str, str, dict[str, Any]]:
    created = client.post("/v1/games", json={"preset": "classic",
                                             "seats": [{"kind": "human"}, AI, AI]}).get_json()
    return created["game"]["game_id"], created["tokens"]["0"], created["game"]


def _refusals(game_id: str, version: int) -> list[tuple[str, str, dict[str, Any]]]:
    """(method, path, request arguments) of requests each refused with a 4xx."""
    act = f"/v1/games/{game_id}/actions"
    return [
        ("post", act, {"json": {"action": "pass", "version": False}}),
        ("post", act, {"json": {"action": "pass", "version": "0"}}),
        ("post", act, {"json": {"action": "pass"}}),
        ("post", act, {"json": {"action": "pass", "version": version + 7}}),
        ("post", act, {"json": {"action": "pass", "version": -1}}),
        ("post", act, {"json": {"action": "ZZ", "version": version}}),
        ("post", act, {"json": {"action": "3C 3C", "version": version}}),
        ("post", act, {"json": {"action": "JOKER JOKER JOKER", "version": version}}),
        ("post", act, {"json": {"action": "pass" * 1000, "version": version}}),
        ("post", act, {"json": {"action": "pass", "version": version}, "headers": {
            "Idempotency-Key": "x" * 500}}),
        ("post", act, {"data": "not json", "content_type": "application/json"}),
        ("post", act, {"json": [1, 2, 3]}),
        ("get", f"/v1/games/{game_id}/events?after=-3", {}),
        ("get", f"/v1/games/{game_id}/events?wait=soon", {}),
        ("get", f"/v1/games/{game_id}/events/stream?after=x", {}),
        ("post", f"/v1/games/{game_id}/hint", {"json": {"level": "nobody"}}),
        ("post", f"/v1/games/{game_id}/leave", {"json": {}, "headers": {
            "Authorization": "Bearer " + secrets.token_urlsafe(32)}}),
        ("post", f"/v1/games/{game_id}/start", {"json": {}}),
        *(("post", act, {"json": {"action": "pass", "version": version},
                         "headers": {"Authorization": header}})
          for header in ("Bearer nonsense", "Bearer " + "a" * 43, "Basic eA==")),
    ]


def test_every_refused_request_leaves_the_game_and_the_seat_s_presence_as_they_were(
        client: FlaskClient, db: Engine) -> None:
    game_id, token, game = _acting(client)
    before = _written(db, game_id)
    assert not any(connected for _, connected, _ in before[1])  # not heard from yet
    for method, path, arguments in _refusals(game_id, game["version"]):
        headers = {"Authorization": f"Bearer {token}", **arguments.pop("headers", {})}
        answer = getattr(client, method)(path, headers=headers, **arguments)
        assert 400 <= answer.status_code < 500, (path, arguments, answer.status_code)
        assert answer.mimetype == "application/problem+json", (path, arguments)
        assert _written(db, game_id) == before, (method, path, arguments)


def test_the_seat_is_heard_from_once_a_request_of_its_own_succeeds(
        client: FlaskClient, db: Engine) -> None:
    game_id, token, _ = _acting(client)
    seen = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
    assert seen["seats"][0]["connected"]  # the view it is answered says so already
    assert _written(db, game_id)[1][0][1] is True
