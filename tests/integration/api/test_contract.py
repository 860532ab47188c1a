"""The contract integrators hold the service to: a valid OpenAPI document that declares
what the routes read, strict bodies, every query parameter and header checked (400,
never 500, nothing changed), HTTP caching, and the headers every response carries."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from test_events import AIS, events, play_until_over
from test_http import bearer, first_play, new_game, seat_view

ACTIONS = "/v1/games/{game_id}/actions"


def _spec(client: FlaskClient) -> dict[str, Any]:
    return client.get("/openapi.json").get_json()  # type: ignore[no-any-return]


def test_the_document_is_valid_openapi_with_every_tag_and_header_declared(
        client: FlaskClient) -> None:
    spec = _spec(client)
    validate(spec)  # raises on a dangling $ref, a bad type, a missing field
    declared = {tag["name"] for tag in spec["tags"]}
    operations = [op for path in spec["paths"].values() for op in path.values()]
    assert {tag for op in operations for tag in op["tags"]} <= declared
    assert len({op["operationId"] for op in operations}) == len(operations)
    params = {(p["in"], p["name"]) for p in spec["paths"][ACTIONS]["post"]["parameters"]}
    assert ("header", "Idempotency-Key") in params
    stream = spec["paths"]["/v1/games/{game_id}/events/stream"]["get"]["parameters"]
    assert ("header", "Last-Event-ID") in {(p["in"], p["name"]) for p in stream}
    view = spec["components"]["schemas"]["ViewOut"]
    assert "-1" in view["properties"]["to_act"]["description"]


@pytest.mark.parametrize("version", [False, True, "0", 0.0, None, [0]])
def test_a_version_that_is_not_an_integer_is_refused_and_nothing_played(
        client: FlaskClient, version: Any) -> None:
    created = new_game(client)
    game_id = created["game"]["game_id"]
    seat = str(created["game"]["view"]["to_act"])
    mine = seat_view(client, game_id, created["tokens"][seat])
    response = client.post(f"/v1/games/{game_id}/actions", headers=bearer(created["tokens"][seat]),
                           json={"action": first_play(mine), "version": version})
    assert response.status_code == 400 and response.get_json()["code"] == "invalid_body"
    assert seat_view(client, game_id, created["tokens"][seat])["version"] == 0


@pytest.mark.parametrize("query", ["after=1000000000000000000000000000000", "after=-1",
                                   "after=abc", "wait=nan", "wait=inf", "wait=31", "limit=0"])
def test_a_bad_query_parameter_is_a_400_problem(client: FlaskClient, query: str) -> None:
    game_id = new_game(client)["game"]["game_id"]
    path = "/v1/games?" if query.startswith("limit") else f"/v1/games/{game_id}/events?"
    response = client.get(path + query)
    assert response.status_code == 400 and response.get_json()["code"] == "invalid_query"
    assert response.mimetype == "application/problem+json"


@pytest.mark.parametrize("header", ["abc", "-1", "99999999999", "1e3", " 1", "٣"])
def test_a_last_event_id_that_is_not_an_event_number_is_a_400_problem(
        client: FlaskClient, header: str) -> None:
    game_id = new_game(client)["game"]["game_id"]
    response = client.get(f"/v1/games/{game_id}/events/stream",
                          headers={"Last-Event-ID": header})
    assert response.status_code == 400 and response.get_json()["code"] == "bad_event_number"
    huge = client.get(f"/v1/games/{game_id}/events/stream?after=99999999999")
    assert huge.status_code == 400 and huge.get_json()["code"] == "bad_event_number"


def test_an_idempotency_key_reused_at_a_later_version_is_refused(client: FlaskClient) -> None:
    created = new_game(client)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    seat = str(created["game"]["view"]["to_act"])
    mine = seat_view(client, game_id, tokens[seat])
    body = {"action": first_play(mine), "version": 0}
    headers = {**bearer(tokens[seat]), "Idempotency-Key": "move-1"}
    first = client.post(f"/v1/games/{game_id}/actions", headers=headers, json=body)
    again = client.post(f"/v1/games/{game_id}/actions", headers=headers, json=body)
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    later = client.post(f"/v1/games/{game_id}/actions", headers=headers,
                        json={**body, "version": 1})
    assert later.status_code == 422 and later.get_json()["code"] == "idempotency_key_reused"
    long_key = client.post(f"/v1/games/{game_id}/actions", json=body,
                           headers={**bearer(tokens[seat]), "Idempotency-Key": "k" * 129})
    assert long_key.status_code == 400 and long_key.get_json()["code"] == "bad_idempotency_key"
    assert seat_view(client, game_id, tokens[seat])["version"] == 1


def test_a_view_carries_an_etag_and_answers_304_until_the_game_moves(
        client: FlaskClient) -> None:
    created = new_game(client)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    seat = str(created["game"]["view"]["to_act"])
    first = client.get(f"/v1/games/{game_id}", headers=bearer(tokens[seat]))
    etag = first.headers["ETag"]
    assert first.headers["Cache-Control"] == "private, no-cache"
    assert "Authorization" in first.headers["Vary"]
    same = client.get(f"/v1/games/{game_id}", headers={**bearer(tokens[seat]),
                                                        "If-None-Match": etag})
    assert same.status_code == 304 and same.data == b"" and same.headers["ETag"] == etag
    other = client.get(f"/v1/games/{game_id}", headers={"If-None-Match": etag})
    assert other.status_code == 200  # the spectator's view is another body
    client.post(f"/v1/games/{game_id}/actions", headers=bearer(tokens[seat]),
                json={"action": first_play(first.get_json()), "version": 0})
    moved = client.get(f"/v1/games/{game_id}", headers={**bearer(tokens[seat]),
                                                         "If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag


def test_finished_rounds_and_replays_say_they_never_change(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=2, seed=6)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    ongoing = client.get(f"/v1/games/{game_id}/rounds/1/replay")
    assert ongoing.headers["Cache-Control"] == "private, no-cache"  # round 1 still on
    play_until_over(client, game_id, token)
    for path in ("rounds", "rounds/1/replay", "rounds/2/replay"):
        done = client.get(f"/v1/games/{game_id}/{path}")
        assert done.status_code == 200
        assert "immutable" in done.headers["Cache-Control"], path
    missing = client.get(f"/v1/games/{game_id}/rounds/3/replay")
    assert missing.status_code == 404 and missing.get_json()["code"] == "round_not_found"


def test_a_stream_on_a_finished_series_ends_once_the_client_has_every_event(
        client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=1, seed=6)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    last = events(client, game_id)["last"]
    resumed = client.get(f"/v1/games/{game_id}/events/stream",
                         headers={"Last-Event-ID": str(last)})
    assert resumed.status_code == 200 and resumed.get_data(as_text=True) == ""  # it ended
    whole = client.get(f"/v1/games/{game_id}/events/stream").get_data(as_text=True)
    assert whole.count("\n\nid: ") + 1 == last and whole.rstrip().endswith("}")


@pytest.mark.parametrize("path", ["/", "/docs", "/openapi.json", "/v1/rules", "/v1/games/nope",
                                  "/healthz"])
def test_every_response_carries_the_security_headers(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    policy = response.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_the_docs_page_loads_nothing_from_another_origin(client: FlaskClient) -> None:
    page = client.get("/docs").get_data(as_text=True)
    assert "http" not in page and "<script>" not in page  # no CDN, no inline script
    for asset in ("/docs/docs.js", "/docs/assets/swagger-ui-bundle.js",
                  "/docs/assets/swagger-ui.css"):
        assert client.get(asset).status_code == 200, asset


def test_an_unknown_method_counts_as_other_in_the_metrics(client: FlaskClient) -> None:
    for method in ("BREW", "PROPFIND", "X-ANYTHING"):
        client.open("/v1/rules", method=method)
    text = client.get("/metrics").get_data(as_text=True)
    assert 'method="OTHER"' in text
    assert "BREW" not in text and "PROPFIND" not in text


def test_with_a_metrics_port_the_metrics_answer_there_only(
        db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from apps import inline_app

    monkeypatch.setenv("PRESIDENT_METRICS_PORT", "9100")
    client = inline_app(db).test_client()
    assert client.get("/metrics").status_code == 404  # the public port
    # (gunicorn sets SERVER_PORT from the listening socket, not from the Host header)
    assert client.get("/metrics", base_url="http://127.0.0.1:9100").status_code == 200
    from services.api.serve import options

    assert options("0.0.0.0", 8000, 2, "gevent", 8)["bind"] == ["0.0.0.0:8000", "0.0.0.0:9100"]
