"""The REST API through Flask's test client, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, func, select

from apps import deal_next
from engine import Rules
from services.api.app import MAX_BODY_BYTES
from services.store.models import ActionRow
from played import bearer, first_play

HUMANS = [{"kind": "human"}] * 4


def new_game(client: FlaskClient, seats: list[dict[str, Any]] = HUMANS, **extra: Any) -> dict[str, Any]:
    if "seed" in extra and any(s["kind"] != "ai" for s in seats):  # others sit: drawn
        deal_next(client.application, extra.pop("seed"))
    response = client.post("/v1/games", json={"preset": "classic", "seats": seats, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def seat_view(client: FlaskClient, game_id: str, token: str) -> dict[str, Any]:
    response = client.get(f"/v1/games/{game_id}", headers=bearer(token))
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def actions_stored(db: Engine) -> int:
    with db.connect() as c:
        return c.scalar(select(func.count()).select_from(ActionRow)) or 0


def assert_problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["code"] == code and body["type"].endswith(code) and body["status"] == status
    assert body["detail"]


def test_four_humans_play_a_round_over_http(client: FlaskClient) -> None:
    created = new_game(client, rounds=1, seed=21)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    assert sorted(tokens) == ["0", "1", "2", "3"]
    moves = 0
    while True:
        public = client.get(f"/v1/games/{game_id}").get_json()
        if public["status"] == "over":
            break
        assert public["view"]["hand"] == [] and public["view"]["legal_actions"] == []
        mine = seat_view(client, game_id, tokens[str(public["view"]["to_act"])])
        response = client.post(f"/v1/games/{game_id}/actions", headers=bearer(
            tokens[str(mine["view"]["seat"])]), json={"action": first_play(mine),
                                                     "version": mine["version"]})
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["version"] == mine["version"] + 1
        moves += 1
    assert moves > 20 and public["view"]["outcome"]["winners"]
    assert sorted(public["view"]["results"][0]["points"]) == [1, 2, 3, 4]


def test_one_human_and_three_inline_ais_play_a_three_round_series(client: FlaskClient) -> None:
    seats = [{"kind": "human"}, {"kind": "ai", "engine": "easy"},
             {"kind": "ai", "engine": "normal"}, {"kind": "ai", "engine": "hard"}]
    created = new_game(client, seats=seats, rounds=3, seed=5)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    assert list(created["tokens"]) == ["0"]
    exchanges_seen = 0
    while True:
        mine = seat_view(client, game_id, token)
        if mine["status"] == "over":
            break
        exchanges_seen += any(e["cards"] for e in mine["view"]["exchanges"])
        response = client.post(f"/v1/games/{game_id}/actions", headers=bearer(token),
                               json={"action": first_play(mine), "version": mine["version"]})
        assert response.status_code == 200, response.get_json()
    assert len(mine["view"]["results"]) == 3 and exchanges_seen


def test_a_token_sees_its_own_hand_and_nobody_elses(client: FlaskClient) -> None:
    created = new_game(client, seed=9)
    game_id = created["game"]["game_id"]
    hands = {}
    for seat, token in created["tokens"].items():
        view = seat_view(client, game_id, token)["view"]
        assert view["seat"] == int(seat)
        hands[seat] = set(view["hand"])
    assert sum(len(h) for h in hands.values()) == 52
    spectator = client.get(f"/v1/games/{game_id}").get_json()["view"]
    assert spectator["seat"] is None and spectator["hand"] == []
    body = client.get(f"/v1/games/{game_id}", headers=bearer(created["tokens"]["0"])).get_data(as_text=True)
    for other in ("1", "2", "3"):
        assert not any(f'"{card}"' in body for card in hands[other])


@pytest.mark.parametrize("case", [
    "malformed_json", "unknown_field", "unknown_card", "duplicate_card", "not_in_hand",
    "not_your_turn", "wrong_token", "missing_token", "unknown_game", "oversize", "stale",
    "bad_preset", "bad_option", "bad_engine",
])
def test_bad_requests_are_problems_and_change_nothing(client: FlaskClient, db: Engine,
                                                      case: str) -> None:
    created = new_game(client, seed=13)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    to_act = client.get(f"/v1/games/{game_id}").get_json()["view"]["to_act"]
    mine = seat_view(client, game_id, tokens[str(to_act)])
    other = tokens[str((to_act + 1) % 4)]
    not_mine = next(c for c in seat_view(client, game_id, other)["view"]["hand"])
    url = f"/v1/games/{game_id}/actions"
    ok = {"action": first_play(mine), "version": 0}
    me = bearer(tokens[str(to_act)])
    request: Callable[[], Any]
    status, code = {
        "malformed_json": (400, "malformed_body"), "unknown_field": (400, "invalid_body"),
        "unknown_card": (400, "unknown_card"), "duplicate_card": (400, "duplicate_card"),
        "not_in_hand": (422, "card_not_in_hand"), "not_your_turn": (409, "not_your_turn"),
        "wrong_token": (401, "bad_token"), "missing_token": (401, "bad_token"),
        "unknown_game": (404, "game_not_found"), "oversize": (413, "body_too_large"),
        "stale": (409, "stale_version"), "bad_preset": (400, "unknown_preset"),
        "bad_option": (400, "unknown_option"), "bad_engine": (400, "invalid_seat"),
    }[case]
    hand0 = mine["view"]["hand"][0]
    request = {
        "malformed_json": lambda: client.post(url, data="{nope", headers=me,
                                              content_type="application/json"),
        "unknown_field": lambda: client.post(url, json={**ok, "cheat": True}, headers=me),
        "unknown_card": lambda: client.post(url, json={**ok, "action": "1X"}, headers=me),
        "duplicate_card": lambda: client.post(url, json={**ok, "action": f"{hand0} {hand0}"},
                                              headers=me),
        "not_in_hand": lambda: client.post(url, json={**ok, "action": not_mine}, headers=me),
        "not_your_turn": lambda: client.post(url, json=ok, headers=bearer(other)),
        "wrong_token": lambda: client.post(url, json=ok, headers=bearer("x" * 43)),
        "missing_token": lambda: client.post(url, json=ok),
        "unknown_game": lambda: client.post("/v1/games/" + "f" * 32 + "/actions", json=ok,
                                            headers=me),
        "oversize": lambda: client.post(url, data="[" + " " * MAX_BODY_BYTES + "]",
                                        headers=me, content_type="application/json"),
        "stale": lambda: client.post(url, json={**ok, "version": 3}, headers=me),
        "bad_preset": lambda: client.post("/v1/games", json={"preset": "poker", "seats": HUMANS}),
        "bad_option": lambda: client.post("/v1/games", json={"preset": "classic", "seats": HUMANS,
                                                             "options": {"wild": True}}),
        "bad_engine": lambda: client.post("/v1/games", json={
            "preset": "classic", "seats": [{"kind": "ai", "engine": "10.0.0.1:50051"}] + HUMANS[1:]}),
    }[case]
    before = client.get(f"/v1/games/{game_id}").get_json()
    assert_problem(request(), status, code)
    assert client.get(f"/v1/games/{game_id}").get_json() == before
    assert actions_stored(db) == 0


def test_two_moves_at_once_exactly_one_applies(client: FlaskClient, db: Engine) -> None:
    created = new_game(client, seed=17)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    to_act = client.get(f"/v1/games/{game_id}").get_json()["view"]["to_act"]
    mine = seat_view(client, game_id, tokens[str(to_act)])
    plays = mine["view"]["legal_actions"][:3]
    statuses: list[int] = []
    barrier = threading.Barrier(len(plays))
    app = client.application

    def move(action: str) -> None:
        with app.test_client() as own:  # one client per thread, as separate callers
            barrier.wait()
            statuses.append(own.post(f"/v1/games/{game_id}/actions",
                                     headers=bearer(tokens[str(to_act)]),
                                     json={"action": action, "version": 0}).status_code)

    threads = [threading.Thread(target=move, args=(p,)) for p in plays]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [409] * (len(plays) - 1)
    assert actions_stored(db) == 1


def test_rules_probes_and_spec(client: FlaskClient) -> None:
    rules = client.get("/v1/rules").get_json()
    assert set(rules["presets"]) >= {"classic", "cardverse", "club"}
    assert Rules.from_dict(rules["presets"]["club"]) == Rules.preset("club")
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json() == {"status": "ready"}
    spec = client.get("/openapi.json").get_json()
    assert spec["openapi"].startswith("3.1")
    assert {"/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/actions",
            "/v1/rules"} <= set(spec["paths"])
    assert client.get("/docs").status_code == 200


def _but_presence(game: dict[str, Any]) -> dict[str, Any]:
    return {**game, "seats": [{**s, "connected": None} for s in game["seats"]]}


def test_a_retried_request_returns_the_first_result_and_plays_nothing_twice(
        client: FlaskClient, db: Engine) -> None:
    created = new_game(client, seed=23)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    to_act = client.get(f"/v1/games/{game_id}").get_json()["view"]["to_act"]
    mine = seat_view(client, game_id, tokens[str(to_act)])
    body = {"action": first_play(mine), "version": 0}
    headers = {**bearer(tokens[str(to_act)]), "Idempotency-Key": "retry-me-1"}
    first = client.post(f"/v1/games/{game_id}/actions", json=body, headers=headers)
    assert first.status_code == 200
    # the next seat moves on meanwhile; the retry still answers what the first call did
    nxt = seat_view(client, game_id, tokens[str(first.get_json()["view"]["to_act"])])
    assert client.post(f"/v1/games/{game_id}/actions", headers=bearer(tokens[str(nxt['view']['seat'])]),
                       json={"action": "pass", "version": 1}).status_code == 200
    again = client.post(f"/v1/games/{game_id}/actions", json=body, headers=headers)
    assert again.status_code == 200 and _but_presence(again.get_json()) == \
        _but_presence(first.get_json())  # (the seats say who is connected now)
    assert actions_stored(db) == 2
    reused = client.post(f"/v1/games/{game_id}/actions", headers=headers,
                         json={"action": "pass", "version": 2})
    assert_problem(reused, 422, "idempotency_key_reused")
    assert actions_stored(db) == 2


def test_concurrent_retries_with_one_key_apply_once(client: FlaskClient, db: Engine) -> None:
    created = new_game(client, seed=29)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    to_act = client.get(f"/v1/games/{game_id}").get_json()["view"]["to_act"]
    mine = seat_view(client, game_id, tokens[str(to_act)])
    body = {"action": first_play(mine), "version": 0}
    headers = {**bearer(tokens[str(to_act)]), "Idempotency-Key": "same-click"}
    results: list[tuple[int, Any]] = []
    barrier = threading.Barrier(3)
    app = client.application

    def send() -> None:
        with app.test_client() as own:
            barrier.wait()
            r = own.post(f"/v1/games/{game_id}/actions", json=body, headers=headers)
            results.append((r.status_code, r.get_json()))

    threads = [threading.Thread(target=send) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [status for status, _ in results] == [200, 200, 200]
    assert all(r == results[0][1] for _, r in results)
    assert actions_stored(db) == 1


def test_metrics_count_requests_by_route_and_status(client: FlaskClient) -> None:
    client.get("/v1/rules")
    client.get("/v1/games/" + "0" * 32)
    text_ = client.get("/metrics").get_data(as_text=True)
    assert 'president_http_requests_total{method="GET",route="/v1/rules",status="200"}' in text_
    assert 'route="/v1/games/<string:game_id>",status="404"' in text_
    assert "president_http_request_seconds_bucket" in text_
    assert 'president_game_reads_total{source="database"}' in text_  # the unknown game


def test_a_view_is_rendered_once_per_version_and_seat(client: FlaskClient) -> None:
    created = new_game(client, seed=21)
    url = f"/v1/games/{created['game']['game_id']}"
    to_act = client.get(url).get_json()["view"]["to_act"]
    actor = bearer(created["tokens"][str(to_act)])
    first = client.get(url, headers=actor).get_data()
    assert client.get(url, headers=actor).get_data() == first
    for seat, token in created["tokens"].items():  # same version, each seat its own view
        assert client.get(url, headers=bearer(token)).get_json()["view"]["seat"] == int(seat)
    before = json.loads(first)
    moved = client.post(f"{url}/actions", json={"action": first_play(before), "version": 0},
                        headers=actor).get_json()
    again = client.get(url, headers=actor).get_json()
    assert again == moved and again["version"] == 1
    assert len(again["view"]["hand"]) < len(before["view"]["hand"])
