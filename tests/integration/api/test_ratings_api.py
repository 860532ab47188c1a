"""Leaderboards and players over HTTP, on SQLite and PostgreSQL (docs/ratings.md): the
board a page at a time and around a player, a player's figures, what another key and
no key see, and bad input."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from services.commands import RatingPolicy
from services.handlers.ratings import rate_all
from services.store import Store
from test_http import assert_problem
from test_tables import create, key, play_out


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    with inline_app(db).test_client() as c:
        yield c


def _rated_series(client: FlaskClient, headers: dict[str, str], player: str,
                  seed: int) -> str:
    created = create(client, [{"kind": "human", "player_id": player},
                              {"kind": "ai", "engine": "easy"},
                              {"kind": "ai", "engine": "normal"},
                              {"kind": "ai", "engine": "easy"}], headers, rounds=2, seed=seed)
    play_out(client, created["game"]["game_id"], [created["tokens"]["0"]])
    return str(created["game"]["game_id"])


def _all(client: FlaskClient, headers: dict[str, str], limit: int) -> list[dict[str, Any]]:
    found, cursor = [], ""
    while True:
        page = client.get(f"/v1/leaderboards/classic-4?limit={limit}&cursor={cursor}",
                          headers=headers).get_json()
        found += page["standings"]
        if page["next_cursor"] is None:
            return found
        cursor = page["next_cursor"]


def test_boards_and_players_as_a_key_sees_them(client: FlaskClient, db: Engine) -> None:
    owner, other = key(db), key(db)
    for n, player in enumerate(("ann", "bob", "cy")):
        _rated_series(client, owner, player, seed=n)
    rate_all(Store(db).uow, RatingPolicy())
    board = _all(client, owner, limit=2)
    assert {s["player_id"] for s in board} == {"ann", "bob", "cy", "ai:easy", "ai:normal"}
    assert [s["rank"] for s in board] == [1, 2, 3, 4, 5]
    assert [s["ordinal"] for s in board] == sorted((s["ordinal"] for s in board),
                                                   reverse=True)
    assert _all(client, owner, limit=100) == board
    middle = board[2]["player_id"]
    around = client.get(f"/v1/leaderboards/classic-4?around={middle}&limit=1",
                        headers=owner).get_json()
    assert around["standings"] == board[1:4] and around["next_cursor"] is None
    assert _all(client, other, 10) == []  # its own view of the AI levels: unrated yet

    ann = client.get("/v1/players/ann", headers=owner).get_json()
    (pool,) = ann["pools"]
    assert pool["pool"] == "classic-4" and pool["rounds"] == 2 and pool["series"] == 1
    assert len(pool["history"]) == 2 and pool["history"][0]["ordinal"] == pool["ordinal"]
    assert pool["mean_points"] == sum(r["points"] for r in pool["history"]) / 2
    assert pool["president_rate"] == sum(r["role"] == "president"
                                         for r in pool["history"]) / 2
    easy = client.get("/v1/players/ai:easy", headers=owner).get_json()
    assert easy["pools"][0]["rounds"] == 3 * 2  # one seat of ai:easy counts a round once
    assert client.get("/v1/players/ai:easy", headers=other).get_json()["pools"] == []
    assert_problem(client.get("/v1/players/ann", headers=other), 404, "player_not_found")
    assert_problem(client.get("/v1/players/nobody", headers=owner), 404, "player_not_found")


def test_bad_queries_and_callers_are_refused(client: FlaskClient, db: Engine) -> None:
    owner = key(db)
    assert_problem(client.get("/v1/leaderboards/classic-4"), 401, "key_required")
    assert_problem(client.get("/v1/players/ann"), 401, "key_required")
    assert_problem(client.get("/v1/leaderboards/classic-4?cursor=bm9wZQ", headers=owner),
                   400, "bad_cursor")
    assert_problem(client.get("/v1/leaderboards/classic-4?limit=0", headers=owner), 400,
                   "invalid_query")
    refused = client.post("/v1/games", headers=owner, json={
        "preset": "classic", "seats": [{"kind": "human", "player_id": "ai:hard"},
                                       {"kind": "ai", "engine": "easy"},
                                       {"kind": "ai", "engine": "easy"}]})
    assert_problem(refused, 400, "bad_player")
    assert client.get("/v1/leaderboards/classic-4", headers=owner).get_json() == {
        "pool": "classic-4", "standings": [], "next_cursor": None}


def test_a_pool_or_player_name_longer_than_its_route_takes_is_a_documented_404(
        client: FlaskClient, db: Engine) -> None:
    owner = key(db)
    assert client.get("/v1/leaderboards/" + "p" * 80, headers=owner).status_code == 200
    assert_problem(client.get("/v1/leaderboards/" + "p" * 81, headers=owner), 404, "not_found")
    assert_problem(client.get("/v1/players/" + "p" * 65, headers=owner), 404, "not_found")
    paths = client.get("/openapi.json").get_json()["paths"]
    for path in ("/v1/leaderboards/{pool}", "/v1/players/{player_id}"):
        assert "404" in paths[path]["get"]["responses"]
