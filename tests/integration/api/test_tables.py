"""Tables over HTTP, on SQLite and PostgreSQL (docs/lobby.md): open seats filled by
invite, racing joins, starting early, cancelling, invites rotated, leaving, rematches,
a player's games, private games, and every refusal changing nothing."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, update

from apps import deal_next, inline_app
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.handlers.presence import expire
from services.store import Store
from services.store.models import SeatRow
from test_http import assert_problem, bearer, first_play

OPEN4 = [{"kind": "open"}] * 4
SCOPES = ("games:create-human", "games:create-ai", "games:read")


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    with inline_app(db).test_client() as c:
        yield c


def key(db: Engine) -> dict[str, str]:
    _, secret = create_key(CreateKey("an app", SCOPES), Store(db).uow())
    return {"X-API-Key": secret}


def create(client: FlaskClient, seats: list[dict[str, Any]], headers: dict[str, str] = {},
           **extra: Any) -> dict[str, Any]:
    if "seed" in extra and any(s["kind"] != "ai" for s in seats):  # others sit: drawn
        deal_next(client.application, extra.pop("seed"))
    response = client.post("/v1/games", json={"preset": "classic", "seats": seats, **extra},
                           headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def join(client: FlaskClient, code: str, headers: dict[str, str] = {},
         **body: Any) -> Any:
    return client.post("/v1/join", json={"code": code, **body}, headers=headers)


def game(client: FlaskClient, game_id: str, headers: dict[str, str] = {}) -> dict[str, Any]:
    response = client.get(f"/v1/games/{game_id}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def event_types(client: FlaskClient, game_id: str, headers: dict[str, str] = {}) -> list[str]:
    response = client.get(f"/v1/games/{game_id}/events", headers=headers)
    return [e["type"] for e in response.get_json()["events"]]


def play_out(client: FlaskClient, game_id: str, tokens: list[str]) -> None:
    """Every human seat plays its first legal play when its turn comes, to the end, each
    from its own address (four clients: the address's limit is each one's ceiling)."""
    def seen(n: int) -> dict[str, Any]:
        response = client.get(f"/v1/games/{game_id}", headers=bearer(tokens[n]),
                              environ_base={"REMOTE_ADDR": f"10.0.0.{n + 1}"})
        assert response.status_code == 200, response.get_json()
        return response.get_json()  # type: ignore[no-any-return]

    while True:
        views = [seen(n) for n in range(len(tokens))]
        if views[0]["status"] == "over":
            return
        for n, view in enumerate(views):
            if view["view"]["to_act"] == view["view"]["seat"]:
                response = client.post(f"/v1/games/{game_id}/actions",
                                       headers=bearer(tokens[n]),
                                       environ_base={"REMOTE_ADDR": f"10.0.0.{n + 1}"},
                                       json={"action": first_play(view),
                                             "version": view["version"]})
                assert response.status_code in (200, 409), response.get_json()


def test_four_clients_fill_a_table_by_invite_and_it_starts(client: FlaskClient,
                                                           db: Engine) -> None:
    owner = key(db)
    created = create(client, OPEN4, owner)
    game_id, code = created["game"]["game_id"], created["invite"]
    assert created["game"]["status"] == "waiting" and created["tokens"] == {}
    assert len(code) == 14 and code.count("-") == 2
    tokens = []
    for n, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        response = join(client, code if n % 2 else code.lower().replace("-", " "), owner,
                        player_id=f"user-{n}", name=name)
        assert response.status_code == 201, response.get_json()
        seated = response.get_json()
        assert seated["seat"] == n and seated["game"]["view"]["seat"] == n
        assert seated["game"]["status"] == ("active" if n == 3 else "waiting")
        tokens.append(seated["token"])
    started = game(client, game_id, owner)
    assert [s["name"] for s in started["seats"]] == ["Ann", "Bob", "Cy", "Di"]
    assert [s["kind"] for s in started["seats"]] == ["human"] * 4
    assert "player_id" not in str(started) and "user-0" not in str(started)
    types = event_types(client, game_id, owner)
    assert types[-5:] == ["seat_joined"] * 4 + ["game_started"]
    for n, token in enumerate(tokens):  # each token opens its own seat
        assert game(client, game_id, bearer(token))["view"]["seat"] == n
    play_out(client, game_id, tokens)
    assert game(client, game_id, owner)["status"] == "over"


def test_nobody_plays_a_waiting_game_and_a_full_or_started_one_takes_nobody(
        client: FlaskClient) -> None:
    created = create(client, [{"kind": "human"}, {"kind": "open"},
                              {"kind": "ai", "engine": "easy"}])
    game_id, host, code = created["game"]["game_id"], created["tokens"]["0"], created["invite"]
    early = client.post(f"/v1/games/{game_id}/actions", headers=bearer(host),
                        json={"action": "pass", "version": 0})
    assert_problem(early, 409, "game_not_started")
    assert join(client, code).status_code == 201
    assert_problem(join(client, code), 409, "game_not_waiting")
    assert_problem(join(client, "0000-0000-0000"), 404, "invite_not_found")
    assert_problem(join(client, "not a code!"), 404, "invite_not_found")
    assert_problem(client.post(f"/v1/games/{game_id}/start", json={}, headers=bearer(host)),
                   409, "game_not_waiting")
    assert event_types(client, game_id).count("seat_joined") == 1


def test_of_many_joins_racing_for_two_seats_exactly_two_win(client: FlaskClient,
                                                           db: Engine) -> None:
    app = client.application
    created = create(client, [{"kind": "human"}, {"kind": "open"}, {"kind": "open"},
                              {"kind": "ai", "engine": "easy"}])
    game_id, code = created["game"]["game_id"], created["invite"]
    answers: list[tuple[int, Any]] = []
    gate = threading.Barrier(8)

    def racer() -> None:
        with app.test_client() as own:
            gate.wait()
            response = join(own, code)
            answers.append((response.status_code, response.get_json()))

    threads = [threading.Thread(target=racer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    won = [body for status, body in answers if status == 201]
    assert sorted(body["seat"] for body in won) == [1, 2]
    assert all(body["code"] in ("game_full", "game_not_waiting")
               for status, body in answers if status != 201)
    assert len(won) == 2
    final = game(client, game_id)
    assert final["status"] == "active" and [s["kind"] for s in final["seats"]] == \
        ["human", "human", "human", "ai"]
    assert event_types(client, game_id).count("seat_joined") == 2


def test_a_player_who_joins_twice_keeps_its_one_seat(client: FlaskClient, db: Engine) -> None:
    owner = key(db)
    created = create(client, OPEN4, owner)
    code, game_id = created["invite"], created["game"]["game_id"]
    first = join(client, code, owner, player_id="p1", name="Ann").get_json()
    again = join(client, code, owner, player_id="p1").get_json()
    assert first["seat"] == again["seat"] == 0 and first["token"] != again["token"]
    assert_problem(client.get(f"/v1/games/{game_id}",
                              headers={**owner, **bearer(first["token"])}),
                   401, "bad_token")  # the new token replaced the old one
    assert game(client, game_id, bearer(again["token"]))["view"]["seat"] == 0
    assert [s["kind"] for s in game(client, game_id, owner)["seats"]].count("human") == 1


def test_the_host_starts_early_with_ai_fill_and_others_may_not(client: FlaskClient,
                                                              db: Engine) -> None:
    created = create(client, [{"kind": "human"}, {"kind": "open"}, {"kind": "open"},
                              {"kind": "open"}])
    game_id, host, code = created["game"]["game_id"], created["tokens"]["0"], created["invite"]
    guest = join(client, code).get_json()["token"]
    assert_problem(client.post(f"/v1/games/{game_id}/start", json={}, headers=bearer(guest)),
                   403, "not_host")
    assert_problem(client.post(f"/v1/games/{game_id}/start", json={}), 403, "not_host")
    assert_problem(client.post(f"/v1/games/{game_id}/start", json={"fill": "grandmaster"},
                               headers=bearer(host)), 400, "invalid_seat")
    assert game(client, game_id)["status"] == "waiting"
    started = client.post(f"/v1/games/{game_id}/start", json={"fill": "easy"},
                          headers=bearer(host))
    assert started.status_code == 200, started.get_json()
    seats = started.get_json()["seats"]
    assert [(s["kind"], s["engine"]) for s in seats] == [
        ("human", None), ("human", None), ("ai", "easy"), ("ai", "easy")]
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert [(e["filled"], e["engine"]) for e in events if e["type"] == "game_started"] == [
        ([2, 3], "easy")]
    play_out(client, game_id, [host, guest])  # the AI seats play through the pipeline


def test_the_owner_key_cancels_and_rotates_the_invite(client: FlaskClient, db: Engine) -> None:
    owner, other = key(db), key(db)
    created = create(client, OPEN4, owner)
    game_id, code = created["game"]["game_id"], created["invite"]
    # another key may not even see this (private) game
    assert_problem(client.post(f"/v1/games/{game_id}/invite", headers=other), 404,
                   "game_not_found")
    assert_problem(client.post(f"/v1/games/{game_id}/cancel", headers=other), 404,
                   "game_not_found")
    rotated = client.post(f"/v1/games/{game_id}/invite", headers=owner)
    assert rotated.status_code == 201
    new_code = rotated.get_json()["invite"]
    assert new_code != code
    assert_problem(join(client, code, owner), 404, "invite_not_found")
    assert join(client, new_code, owner).status_code == 201
    cancelled = client.post(f"/v1/games/{game_id}/cancel", headers=owner)
    assert cancelled.status_code == 200 and cancelled.get_json()["status"] == "cancelled"
    assert_problem(join(client, new_code, owner), 409, "game_not_waiting")
    assert_problem(client.post(f"/v1/games/{game_id}/cancel", headers=owner), 409,
                   "game_not_waiting")
    assert event_types(client, game_id, owner)[-1] == "game_cancelled"
    listed = client.get("/v1/games?status=cancelled", headers=owner).get_json()["games"]
    assert [g["game_id"] for g in listed] == [game_id]


def test_a_seat_that_leaves_mid_round_is_played_by_the_ai_to_the_end(
        client: FlaskClient) -> None:
    created = create(client, [{"kind": "human"}, {"kind": "human"},
                              {"kind": "ai", "engine": "easy"}, {"kind": "ai", "engine": "easy"}],
                     rounds=2, takeover="easy")
    game_id, stays, goes = (created["game"]["game_id"], created["tokens"]["0"],
                            created["tokens"]["1"])
    left = client.post(f"/v1/games/{game_id}/leave", headers=bearer(goes))
    assert left.status_code == 200, left.get_json()
    assert left.get_json()["seats"][1] == {"seat": 1, "kind": "ai", "engine": "easy",
                                           "name": None, "connected": False}
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    table = [(e["type"], e.get("seat"), e.get("reason")) for e in events
             if e["type"] in ("seat_left", "seat_taken_over")]
    assert table == [("seat_left", 1, None), ("seat_taken_over", 1, "left")]
    assert_problem(client.post(f"/v1/games/{game_id}/leave", headers=bearer(goes)), 401,
                   "bad_token")
    play_out(client, game_id, [stays])
    over = game(client, game_id)
    assert over["status"] == "over" and over["view"]["outcome"] is not None
    assert_problem(client.post(f"/v1/games/{game_id}/leave", headers=bearer(stays)), 409,
                   "game_not_active")


def test_all_seats_asking_for_a_rematch_at_once_make_one_game_with_every_seat(
        client: FlaskClient) -> None:
    app = client.application
    created = create(client, [{"kind": "human", "name": "Ann"}, {"kind": "human"},
                              {"kind": "ai", "engine": "easy"}, {"kind": "human"}], rounds=1)
    game_id = created["game"]["game_id"]
    tokens = [created["tokens"][str(n)] for n in (0, 1, 3)]
    assert_problem(client.post(f"/v1/games/{game_id}/rematch", headers=bearer(tokens[0])),
                   409, "series_not_over")
    play_out(client, game_id, tokens)
    answers: list[Any] = []
    gate = threading.Barrier(3)

    def ask(token: str) -> None:
        with app.test_client() as own:
            gate.wait()
            answers.append(own.post(f"/v1/games/{game_id}/rematch", headers=bearer(token)))

    threads = [threading.Thread(target=ask, args=(t,)) for t in tokens]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [201] * 3, [a.get_json() for a in answers]
    new_ids = {a.get_json()["game"]["game_id"] for a in answers}
    assert len(new_ids) == 1 and game_id not in new_ids
    new_id = new_ids.pop()
    assert sorted(a.get_json()["seat"] for a in answers) == [0, 1, 3]
    rematch = game(client, new_id)
    assert rematch["status"] == "active"
    assert [(s["kind"], s["engine"], s["name"]) for s in rematch["seats"]] == [
        ("human", None, "Ann"), ("human", None, None), ("ai", "easy", None),
        ("human", None, None)]
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert [e["rematch"] for e in events if e["type"] == "rematch_created"] == [new_id]
    for answer in answers:  # each seat's new token opens its own seat of the new game
        body = answer.get_json()
        assert game(client, new_id, bearer(body["token"]))["view"]["seat"] == body["seat"]


def test_a_players_games_are_listed_for_its_key_only(client: FlaskClient, db: Engine) -> None:
    owner, other = key(db), key(db)
    first = create(client, [{"kind": "human", "player_id": "p1"}, {"kind": "open"},
                            {"kind": "ai", "engine": "easy"}], owner)
    second = create(client, OPEN4, owner)
    join(client, second["invite"], owner, player_id="p1", name="Ann")
    create(client, [{"kind": "human", "player_id": "p2"}] + [{"kind": "open"}] * 2, owner)
    listed = client.get("/v1/players/p1/games", headers=owner).get_json()
    assert [g["game_id"] for g in listed["games"]] == [second["game"]["game_id"],
                                                        first["game"]["game_id"]]
    paged = client.get("/v1/players/p1/games?limit=1", headers=owner).get_json()
    rest = client.get(f"/v1/players/p1/games?limit=1&cursor={paged['next_cursor']}",
                      headers=owner).get_json()
    assert [g["game_id"] for g in paged["games"] + rest["games"]] == \
        [g["game_id"] for g in listed["games"]]
    waiting = client.get("/v1/players/p1/games?status=waiting", headers=owner).get_json()
    assert len(waiting["games"]) == 2
    assert client.get("/v1/players/p1/games?status=over", headers=owner).get_json() == {
        "games": [], "next_cursor": None}
    assert_problem(client.get("/v1/players/p1/games", headers=other), 404, "player_not_found")
    assert_problem(client.get("/v1/players/p1/games"), 401, "key_required")
    assert_problem(join(client, second["invite"], player_id="p3"), 401, "key_required")
    assert_problem(join(client, first["invite"], owner, player_id=" p1"), 400, "bad_player")
    assert_problem(join(client, first["invite"], owner, player_id="x" * 65), 400,
                   "invalid_body")


def test_private_games_are_watched_with_the_owner_key_or_a_seat_token(
        client: FlaskClient, db: Engine) -> None:
    owner, other = key(db), key(db)
    private = create(client, [{"kind": "human"}, {"kind": "ai", "engine": "easy"},
                              {"kind": "ai", "engine": "easy"}], owner)
    public = create(client, [{"kind": "human"}, {"kind": "ai", "engine": "easy"},
                             {"kind": "ai", "engine": "easy"}], owner, visibility="public")
    assert private["game"]["visibility"] == "private"
    private_id, public_id = private["game"]["game_id"], public["game"]["game_id"]
    for headers in ({}, other):
        assert_problem(client.get(f"/v1/games/{private_id}", headers=headers), 404,
                       "game_not_found")
        assert_problem(client.get(f"/v1/games/{private_id}/events", headers=headers), 404,
                       "game_not_found")
        assert game(client, public_id, headers)["visibility"] == "public"
    assert game(client, private_id, owner)["view"]["seat"] is None
    assert game(client, private_id, bearer(private["tokens"]["0"]))["view"]["seat"] == 0
    anonymous = create(client, [{"kind": "human"}, {"kind": "ai", "engine": "easy"},
                                {"kind": "ai", "engine": "easy"}])
    assert anonymous["game"]["visibility"] == "public"


@pytest.mark.parametrize("seats, code", [
    ([{"kind": "open", "engine": "easy"}] * 3, "invalid_seat"),
    ([{"kind": "human", "name": ""}] * 3, "invalid_body"),
])
def test_bad_seats_are_refused(client: FlaskClient, seats: list[dict[str, Any]],
                               code: str) -> None:
    response = client.post("/v1/games", json={"preset": "classic", "seats": seats})
    assert_problem(response, 400, code)
    assert client.get("/v1/games").get_json()["games"] == []


def test_a_player_named_twice_or_on_an_ai_seat_is_refused(client: FlaskClient,
                                                          db: Engine) -> None:
    owner = key(db)
    for seats in ([{"kind": "human", "player_id": "p"}] * 3,
                  [{"kind": "ai", "engine": "easy", "player_id": "p"}] * 3):
        response = client.post("/v1/games", headers=owner,
                               json={"preset": "classic", "seats": seats})
        assert_problem(response, 400, "invalid_seat")
    assert client.get("/v1/games", headers=owner).get_json()["games"] == []


def test_a_seat_connected_on_one_api_process_is_seen_on_another_until_it_goes_quiet(
        db: Engine) -> None:
    one, two = inline_app(db).test_client(), inline_app(db).test_client()
    created = create(one, [{"kind": "human"}, {"kind": "human"},
                           {"kind": "ai", "engine": "easy"}])
    game_id, token = created["game"]["game_id"], created["tokens"]["1"]

    def connected() -> list[bool]:
        return [s["connected"] for s in game(two, game_id)["seats"]]

    assert connected() == [False, False, False]  # (held in the second process now)
    assert game(one, game_id, bearer(token))["seats"][1]["connected"]
    assert _soon(lambda: connected() == [False, True, False])
    with db.begin() as connection:  # its last request, a minute ago
        connection.execute(update(SeatRow).values(
            seen_at=datetime.now(timezone.utc) - timedelta(minutes=1)))
    assert expire(Store(db).uow) == 1
    assert _soon(lambda: connected() == [False, False, False])
    assert [t for t in event_types(two, game_id) if "connected" in t] == [
        "seat_connected", "seat_disconnected"]


def _soon(check: Callable[[], bool], within_s: float = 5.0) -> bool:
    """(Another process hears of a change by the change feed, a moment later.)"""
    ends = time.monotonic() + within_s
    while not check():
        if time.monotonic() > ends:
            return False
        time.sleep(0.02)
    return True
