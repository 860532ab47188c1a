"""Odd input, where a sweep on PostgreSQL found a 500 or an answer the docs do not give:
each is a documented problem now, on SQLite and PostgreSQL alike, and changes nothing."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from played import bearer
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.store import Store
from test_http import assert_problem

HUMANS = {"preset": "classic", "seats": [{"kind": "human"}] * 4}
TABLE = {"preset": "classic", "seats": [{"kind": "human"}] + [{"kind": "open"}] * 3}


def _key(db: Engine) -> dict[str, str]:
    _, secret = create_key(CreateKey("an app", ("games:create-human", "games:read")),
                           Store(db).uow())
    return {"X-API-Key": secret}


def _made(client: FlaskClient, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    made = client.post("/v1/games", json=body, headers=headers)
    assert made.status_code == 201, made.get_json()
    return made.get_json()  # type: ignore[no-any-return]


def test_an_idempotency_key_that_is_not_printable_is_refused_and_nothing_is_played(
        client: FlaskClient) -> None:
    game = _made(client, HUMANS)
    game_id, view = game["game"]["game_id"], game["game"]
    token = game["tokens"][str(view["view"]["to_act"])]
    seat = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
    refused = client.post(f"/v1/games/{game_id}/actions", json={
        "action": seat["view"]["legal_actions"][0], "version": seat["version"]},
        headers={**bearer(token), "Idempotency-Key": "a\x00b"})
    assert_problem(refused, 400, "bad_idempotency_key")
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == seat["version"]


@pytest.mark.parametrize("round_no", ["2147483648", "9223372036854775808"])
@pytest.mark.parametrize("path, code", [("replay", "round_not_found"),
                                        ("review", "review_not_found")])
def test_a_round_number_past_what_is_stored_is_not_found(
        client: FlaskClient, round_no: str, path: str, code: str) -> None:
    game = _made(client, HUMANS)
    assert_problem(client.get(f"/v1/games/{game['game']['game_id']}/rounds/{round_no}/{path}",
                              headers=bearer(game["tokens"]["0"])), 404, code)


def test_a_cursor_that_hides_a_nul_is_one_the_service_did_not_issue(
        client: FlaskClient, db: Engine) -> None:
    cursor = base64.urlsafe_b64encode(b"2024-01-01T00:00:00+00:00|a\x00b").decode()
    assert_problem(client.get(f"/v1/games?cursor={cursor}", headers=_key(db)), 400,
                   "bad_cursor")


@pytest.mark.parametrize("since", ["0001-01-01T00:00:00%2B14:00",
                                   "9999-12-31T23:59:59-14:00"])
def test_an_export_since_a_moment_utc_cannot_write_is_a_bad_query(
        client: FlaskClient, db: Engine, since: str) -> None:
    assert_problem(client.get(f"/v1/games/export?since={since}", headers=_key(db)), 400,
                   "invalid_query")


@pytest.mark.parametrize("path", ["cancel", "invite", "start"])
def test_a_private_game_s_table_is_not_told_to_exist_to_a_stranger(
        client: FlaskClient, db: Engine, path: str) -> None:
    owner = _key(db)
    game_id = _made(client, {**HUMANS, "visibility": "private"}, **owner)["game"]["game_id"]
    body = {"json": {}} if path == "start" else {}  # (start reads a body)
    for stranger in ({}, _key(db)):
        answer = client.post(f"/v1/games/{game_id}/{path}", headers=stranger, **body)
        assert_problem(answer, 404, "game_not_found")
    # a malformed credential is refused before any game is looked at: as for no game
    malformed = {"Authorization": "Basic x"}
    for target in (game_id, "0" * 32):
        answer = client.post(f"/v1/games/{target}/{path}", headers=malformed, **body)
        assert_problem(answer, 401, "bad_token")
    answer = client.post(f"/v1/games/{game_id}/{path}", headers=owner, **body)  # (active)
    assert_problem(answer, 409, "game_not_waiting")


def test_an_empty_ai_level_is_no_level(client: FlaskClient) -> None:
    assert_problem(client.post("/v1/games", json={**HUMANS, "takeover": ""}), 400,
                   "invalid_seat")
    table = _made(client, TABLE)
    game_id, host = table["game"]["game_id"], table["tokens"]["0"]
    started = client.post(f"/v1/games/{game_id}/start", json={"fill": ""},
                          headers=bearer(host))
    assert_problem(started, 400, "invalid_seat")
    assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "waiting"


def test_a_player_id_longer_than_its_route_takes_is_not_found_on_every_route(
        client: FlaskClient, db: Engine) -> None:
    for path in ("/v1/players/" + "x" * 65, "/v1/players/" + "x" * 65 + "/games"):
        assert_problem(client.get(path, headers=_key(db)), 404, "not_found")


def test_the_spec_declares_a_view_s_304(client: FlaskClient) -> None:
    spec = client.get("/openapi.json").get_json()
    assert "304" in spec["paths"]["/v1/games/{game_id}"]["get"]["responses"]
