"""The party: a key owner reading, listing, rating and acting on another key's games and
players: its private games answer as no game whatever credential comes (none, its own
key, a token of another game), its players' and the AI levels' pages and its boards show
nothing of the other key's games, and its play moves no other key's view of an AI level.
Keys mode (``PRESIDENT_AUTH=keys``, what deploy/ sets), and open mode where it differs."""

from __future__ import annotations

import json
import uuid
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import deal_next, inline_app
from played import bearer, first_play
from services.commands import CreateKey, RatingPolicy
from services.domain import SCOPES
from services.handlers.keys import create_key
from services.handlers.ratings import rate_all
from services.store import Store

AI = [{"kind": "ai", "engine": "easy"}, {"kind": "ai", "engine": "normal"}]


@pytest.fixture(params=["keys", "open"])
def client(request: pytest.FixtureRequest, db: Engine,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    monkeypatch.setenv("PRESIDENT_AUTH", request.param)
    with inline_app(db).test_client() as c:
        yield c


@pytest.fixture
def keys_client(db: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    monkeypatch.setenv("PRESIDENT_AUTH", "keys")
    with inline_app(db).test_client() as c:
        yield c


def _key(db: Engine, name: str) -> dict[str, str]:
    _, secret = create_key(CreateKey(name, SCOPES), Store(db).uow())
    return {"X-API-Key": secret}


def create(client: FlaskClient, seats: list[dict[str, Any]], headers: dict[str, str],
           seed: int | None = None, **extra: Any) -> dict[str, Any]:
    if seed is not None:  # (others may sit: dealt through the tests' seam)
        deal_next(client.application, seed)
    made = client.post("/v1/games", json={"preset": "classic", "seats": seats, **extra},
                       headers=headers)
    assert made.status_code == 201, made.get_json()
    return made.get_json()  # type: ignore[no-any-return]


def join(client: FlaskClient, code: str, headers: dict[str, str], **body: Any) -> Any:
    return client.post("/v1/join", json={"code": code, **body}, headers=headers)


def play_out(client: FlaskClient, game_id: str, tokens: list[str]) -> None:
    """Every human seat plays its first legal play when its turn comes, to the end."""
    while True:
        views = [client.get(f"/v1/games/{game_id}", headers=bearer(t)).get_json()
                 for t in tokens]
        if views[0]["status"] == "over":
            return
        for token, view in zip(tokens, views):
            if view["view"]["to_act"] == view["view"]["seat"]:
                moved = client.post(f"/v1/games/{game_id}/actions", headers=bearer(token),
                                    json={"action": first_play(view),
                                          "version": view["version"]})
                assert moved.status_code in (200, 409), moved.get_json()


def _rated(client: FlaskClient, headers: dict[str, str], player: str, seed: int) -> str:
    """A private series of one round of the key's ``player`` against two AI levels,
    played out."""
    made = create(client, [{"kind": "human", "player_id": player}, *AI], headers,
                  rounds=1, seed=seed)
    play_out(client, made["game"]["game_id"], [made["tokens"]["0"]])
    return str(made["game"]["game_id"])


def _ai_page(client: FlaskClient, headers: dict[str, str], level: str) -> dict[str, Any]:
    page = client.get(f"/v1/players/ai:{level}", headers=headers)
    assert page.status_code == 200, page.get_json()
    return page.get_json()  # type: ignore[no-any-return]


def _games_in(page: dict[str, Any]) -> set[str]:
    return {r["game_id"] for pool in page["pools"] for r in pool["history"]}


def test_another_key_s_games_players_and_ai_pages_show_nothing_of_it(
        keys_client: FlaskClient, db: Engine) -> None:
    client = keys_client
    alice, bob = _key(db, "alice's app"), _key(db, "bob's app")
    made = create(client, [{"kind": "human", "player_id": "ann"}, {"kind": "open"}, *AI],
                  alice, rounds=1, seed=5)
    game_id = made["game"]["game_id"]
    joined = join(client, made["invite"], bob, player_id="bo")  # alice handed its code
    assert joined.status_code == 201, joined.get_json()
    play_out(client, game_id, [made["tokens"]["0"], joined.get_json()["token"]])
    rate_all(Store(db).uow, RatingPolicy(min_rounds=0))
    assert game_id in _games_in(_ai_page(client, alice, "easy"))  # alice's own view

    assert client.get(f"/v1/games/{game_id}", headers=bob).status_code == 404
    listed = client.get("/v1/games", headers=bob).get_json()["games"]
    assert game_id not in {g["game_id"] for g in listed}
    seated = client.get("/v1/players/bo/games", headers=bob).get_json()["games"]
    assert seated == []  # bob's player sat in it, but it is alice's game
    for level in ("easy", "normal"):
        assert _ai_page(client, bob, level)["pools"] == []
    board = client.get("/v1/leaderboards/classic-4?limit=100", headers=bob).get_json()
    assert {s["player_id"] for s in board["standings"]} == {"bo"}  # no AI alice's games rated
    assert client.get("/v1/players/ann", headers=bob).status_code == 404
    exported = client.get("/v1/games/export", headers=bob)
    assert exported.status_code == 200 and exported.get_data(as_text=True) == ""


def test_playing_an_ai_level_under_one_key_leaves_another_s_rating_of_it(
        keys_client: FlaskClient, db: Engine) -> None:
    client = keys_client
    alice, bob = _key(db, "alice's app"), _key(db, "bob's app")
    _rated(client, bob, "bo", seed=1)
    rate_all(Store(db).uow, RatingPolicy(min_rounds=0))
    bobs_view = _ai_page(client, bob, "easy")
    (pool,) = bobs_view["pools"]
    assert pool["rounds"] == 1
    for seed in range(2, 6):  # alice plays Easy again and again
        _rated(client, alice, "ann", seed=seed)
    rate_all(Store(db).uow, RatingPolicy(min_rounds=0))
    assert _ai_page(client, bob, "easy") == bobs_view
    (alices,) = _ai_page(client, alice, "easy")["pools"]
    assert alices["rounds"] == 4  # its own rounds only, none of bob's
    bob_board = client.get(f"/v1/leaderboards/{pool['pool']}?limit=100",
                           headers=bob).get_json()
    easy = next(s for s in bob_board["standings"] if s["player_id"] == "ai:easy")
    assert (easy["mu"], easy["rounds"]) == (pool["mu"], 1)


@pytest.fixture
def open_client(db: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    monkeypatch.setenv("PRESIDENT_AUTH", "open")
    with inline_app(db).test_client() as c:
        yield c


def test_without_a_key_the_ai_pages_show_the_caller_s_own_games_only(
        open_client: FlaskClient, db: Engine) -> None:
    alice = _key(db, "alice's app")
    game_id = _rated(open_client, alice, "ann", seed=1)
    rate_all(Store(db).uow, RatingPolicy(min_rounds=0))
    assert game_id in _games_in(_ai_page(open_client, alice, "easy"))
    assert _ai_page(open_client, {}, "easy")["pools"] == []  # (its origin's games: none)


# Every route that takes a game id: (method, path after the id, JSON body).
ROUTES = [
    ("get", "", None), ("get", "/events", None), ("get", "/events/stream", None),
    ("get", "/rounds", None), ("get", "/rounds/1/replay", None),
    ("post", "/actions", {"action": "pass", "version": 0}),
    ("post", "/hint", {"level": "easy"}),
    ("post", "/rounds/1/review", None), ("get", "/rounds/1/review", None),
    ("get", "/rounds/1/review/stream", None),
    ("post", "/start", {}), ("post", "/cancel", None), ("post", "/invite", None),
    ("post", "/leave", None), ("post", "/rematch", None),
]
CREDENTIALS = ["none", "another key", "another game's token", "another key and its token"]


def _answer(client: FlaskClient, method: str, path: str, body: Any,
            headers: dict[str, str], game_id: str) -> tuple[int, str]:
    """The status and the problem's body, with the game id left out."""
    response = getattr(client, method)(path, json=body, headers=headers)
    return response.status_code, response.get_data(as_text=True).replace(game_id, "<id>")


@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize(("method", "route", "body"), ROUTES,
                         ids=[f"{m} {r or '/'}" for m, r, _ in ROUTES])
def test_a_private_game_answers_as_no_game_whatever_the_credential(
        client: FlaskClient, db: Engine, credential: str, method: str, route: str,
        body: Any) -> None:
    alice, bob = _key(db, "alice's app"), _key(db, "bob's app")
    private = create(client, [{"kind": "human"}, {"kind": "open"}, AI[0]], alice,
                     visibility="private")["game"]["game_id"]
    bobs = create(client, [{"kind": "human"}, *AI], bob)["tokens"]["0"]
    headers = {"none": {}, "another key": bob, "another game's token": bearer(bobs),
               "another key and its token": {**bob, **bearer(bobs)}}[credential]
    missing = uuid.uuid4().hex
    seen = _answer(client, method, f"/v1/games/{private}{route}", body, headers, private)
    none = _answer(client, method, f"/v1/games/{missing}{route}", body, headers, missing)
    assert seen == none, (json.loads(seen[1]), json.loads(none[1]))
    assert seen[0] in (401, 404)  # (refused, as a missing id is)
