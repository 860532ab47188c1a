"""Matchmaking over HTTP, on SQLite and PostgreSQL (docs/ratings.md#matchmaking): tables
of close ratings, the AI for the seats left once a wait is over, tokens shown once, one
live ticket a player, and no ticket in two games however many matchers run at once."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, insert, select

from apps import inline_app
from services.handlers.matchmaking import match
from services.store import Store
from services.store.models import RatingRow, TicketRow
from test_http import assert_problem, bearer
from test_tables import key
from together import at_once


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    with inline_app(db).test_client() as c:
        yield c


def ticket(client: FlaskClient, headers: dict[str, str], player: str,
           **extra: Any) -> dict[str, Any]:
    response = client.post("/v1/matchmaking/tickets", headers=headers,
                           json={"player_id": player, **extra})
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def read(client: FlaskClient, headers: dict[str, str], ticket_id: str) -> dict[str, Any]:
    response = client.get(f"/v1/matchmaking/tickets/{ticket_id}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def run_matcher(client: FlaskClient, db: Engine, later_s: float = 0.0) -> int:
    """The matcher, as a task would run it, ``later_s`` from now."""
    now = datetime.now(timezone.utc) + timedelta(seconds=later_s)
    vault = client.application.extensions["president"].webhooks.vault  # the app's
    return match(Store(db).uow(), vault, now=now)


def test_four_players_of_a_key_get_one_table_and_each_its_token_once(
        client: FlaskClient, db: Engine) -> None:
    owner = key(db)
    tickets = [ticket(client, owner, f"p{n}") for n in range(4)]
    assert {t["state"] for t in tickets} == {"waiting"} and tickets[0]["pool"] == "classic-4"
    assert run_matcher(client, db) == 1
    seen = [read(client, owner, t["id"]) for t in tickets]
    assert {s["state"] for s in seen} == {"matched"}
    (game_id,) = {s["game_id"] for s in seen}
    assert sorted(s["seat"] for s in seen) == [0, 1, 2, 3]
    for s in seen:  # each token opens its own seat
        view = client.get(f"/v1/games/{game_id}", headers=bearer(s["token"])).get_json()
        assert view["view"]["seat"] == s["seat"] and view["status"] == "active"
    assert {read(client, owner, t["id"])["token"] for t in tickets} == {None}  # once
    listed = client.get("/v1/players/p2/games", headers=owner).get_json()["games"]
    assert [g["game_id"] for g in listed] == [game_id]
    assert run_matcher(client, db) == 0


def test_a_wait_that_runs_out_is_completed_with_the_ai_level_it_named(
        client: FlaskClient, db: Engine) -> None:
    owner = key(db)
    alone = ticket(client, owner, "solo", wait_s=5, fill="easy", players=3)
    assert run_matcher(client, db) == 0 and read(client, owner, alone["id"])["state"] == \
        "waiting"
    assert run_matcher(client, db, later_s=6) == 1
    seen = read(client, owner, alone["id"])
    game = client.get(f"/v1/games/{seen['game_id']}", headers=owner).get_json()
    assert [(s["kind"], s["engine"]) for s in game["seats"]].count(("ai", "easy")) == 2
    assert game["seats"][seen["seat"]]["kind"] == "human"


def test_far_apart_ratings_wait_until_the_window_widens(client: FlaskClient,
                                                        db: Engine) -> None:
    owner = key(db)
    first = ticket(client, owner, "strong", players=3, wait_s=600)  # (for the key's id)
    owner_id = _owner(db, first["id"])
    with db.begin() as connection:  # a strong player, and two new ones
        connection.execute(insert(RatingRow).values(
            pool="classic-3", owner=owner_id, player="strong2", mu=60.0, sigma=1.0,
            ordinal=57.0, rounds=50, updated_at=datetime.now(timezone.utc)))
    client.delete(f"/v1/matchmaking/tickets/{first['id']}", headers=owner)
    strong = ticket(client, owner, "strong2", players=3, wait_s=600)
    weak = [ticket(client, owner, f"new{n}", players=3, wait_s=600) for n in range(2)]
    assert run_matcher(client, db) == 0  # 57 points apart: not yet
    assert run_matcher(client, db, later_s=200) == 1  # the window has widened by then
    assert {read(client, owner, t["id"])["state"] for t in [strong, *weak]} == {"matched"}


def _owner(db: Engine, ticket_id: str) -> str:
    with db.connect() as connection:
        return str(connection.scalar(select(TicketRow.owner).where(TicketRow.id == ticket_id)))


def test_one_live_ticket_a_player_and_every_refusal(client: FlaskClient, db: Engine) -> None:
    owner, other = key(db), key(db)
    first = ticket(client, owner, "ann")
    again = client.post("/v1/matchmaking/tickets", headers=owner, json={"player_id": "ann"})
    assert_problem(again, 409, "ticket_exists")
    assert_problem(client.get(f"/v1/matchmaking/tickets/{first['id']}", headers=other), 404,
                   "ticket_not_found")
    cancelled = client.delete(f"/v1/matchmaking/tickets/{first['id']}", headers=owner)
    assert cancelled.status_code == 200 and cancelled.get_json()["state"] == "cancelled"
    assert_problem(client.delete(f"/v1/matchmaking/tickets/{first['id']}", headers=owner),
                   409, "ticket_not_waiting")
    ticket(client, owner, "ann")  # a new one, once the last is over
    for body, status, code in (
            ({"player_id": "bob", "players": 2}, 400, "invalid_body"),
            ({"player_id": "bob", "fill": "grandmaster"}, 400, "invalid_seat"),
            ({"player_id": "bob", "preset": "nope"}, 400, "unknown_preset"),
            ({"player_id": "ai:hard"}, 400, "bad_player")):
        assert_problem(client.post("/v1/matchmaking/tickets", headers=owner, json=body),
                       status, code)
    assert_problem(client.post("/v1/matchmaking/tickets", json={"player_id": "bob"}), 401,
                   "key_required")
    assert_problem(client.get("/v1/matchmaking/tickets/" + "0" * 32, headers=owner), 404,
                   "ticket_not_found")


def test_matchers_running_at_once_put_no_ticket_in_two_games(client: FlaskClient,
                                                            db: Engine) -> None:
    owner = key(db)
    tickets = [ticket(client, owner, f"p{n}") for n in range(40)]
    games = at_once(lambda: run_matcher(client, db), 6)
    assert sum(games) == 10
    seen = [read(client, owner, t["id"]) for t in tickets]
    seats = [(s["game_id"], s["seat"]) for s in seen]
    assert {s["state"] for s in seen} == {"matched"} and len(set(seats)) == 40
    assert len({game_id for game_id, _ in seats}) == 10


def test_a_ticket_streams_its_states_and_ends_matched(client: FlaskClient, db: Engine) -> None:
    owner = key(db)
    first = ticket(client, owner, "ann", players=3, wait_s=1, fill="easy")
    got: dict[str, Any] = {}

    def follow() -> None:
        with client.application.test_client() as own:
            got["body"] = own.get(f"/v1/matchmaking/tickets/{first['id']}/stream",
                                  headers=owner).get_data(as_text=True)

    thread = threading.Thread(target=follow)
    thread.start()
    run_matcher(client, db, later_s=2)  # its wait over: seated with two Easy AIs
    thread.join(timeout=30)
    events = [json.loads(line.removeprefix("data: ")) for line in got["body"].splitlines()
              if line.startswith("data: ")]
    states = [e["state"] for e in events]  # (the matcher may have run before it began)
    assert states in (["waiting", "matched"], ["matched"])
    assert events[-1]["token"] and events[-1]["game_id"]
    assert read(client, owner, first["id"])["token"] is None  # shown once, in the stream
    assert_problem(client.get("/v1/matchmaking/tickets/" + "1" * 32 + "/stream",
                              headers=owner), 404, "ticket_not_found")


def test_a_ticket_s_stream_and_long_poll_hold_a_client_s_stream_slot(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_CLIENT", "1")
    app = inline_app(db)
    client = app.test_client()  # (no block: a streamed response's context outlives it)
    owner = key(db)
    waiting = ticket(client, owner, "p1")
    url = f"/v1/matchmaking/tickets/{waiting['id']}"
    slots = app.extensions["president.streams"]
    stream = client.get(f"{url}/stream", headers=owner, buffered=False)
    assert stream.status_code == 200 and slots.open() == 1
    assert_problem(client.get(f"{url}?wait=1", headers=owner), 429, "too_many_streams")
    assert client.get(url, headers=owner).status_code == 200  # no wait: no slot
    stream.close()
    assert slots.open() == 0
    assert client.get(f"{url}?wait=0.2", headers=owner).status_code == 200
    assert slots.open() == 0
