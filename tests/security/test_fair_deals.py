"""The party: a game's creator (a key owner, holding its own seat's token) trying every
way to choose or learn the deal of a game that others sit in: a seed beside an open seat,
a second human, a player id or a matchmaking ticket; the export, the replay, a hint and a
review of the game while it runs; and the seeded games it may still make, which take
nobody else."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, select

from engine import Rules, new_series, new_series_with_events, observe
from played import bearer, play_until
from services.commands import CreateKey
from services.domain import SCOPES, Game, Seat, Table, invite_hash, new_invite_code
from services.handlers.keys import create_key
from services.store import Store
from services.store.models import GameRow

AI = {"kind": "ai", "engine": "easy"}


def _key(db: Engine) -> dict[str, str]:
    _, secret = create_key(CreateKey("creator", SCOPES), Store(db).uow())
    return {"X-API-Key": secret}


def _problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.get_json()
    assert response.get_json()["code"] == code, response.get_json()


@pytest.mark.parametrize("seats", [
    [{"kind": "human"}, {"kind": "open"}, AI, AI],
    [{"kind": "human"}, {"kind": "human"}, AI, AI],
    [{"kind": "human", "player_id": "me"}, AI, AI, AI],  # a player: a rated game
], ids=["open_seat", "second_human", "player_id"])
def test_a_seed_where_anybody_else_could_sit_is_refused_and_makes_nothing(
        client: FlaskClient, db: Engine, seats: list[dict[str, Any]]) -> None:
    key = _key(db)
    _problem(client.post("/v1/games", headers=key,
                         json={"preset": "classic", "seed": 42, "seats": seats}),
             400, "seed_not_allowed")
    assert client.get("/v1/games", headers=key).get_json()["games"] == []


def test_a_matchmaking_ticket_cannot_name_a_seed(client: FlaskClient, db: Engine) -> None:
    _problem(client.post("/v1/matchmaking/tickets", headers=_key(db),
                         json={"player_id": "me", "seed": 42}), 400, "seed_not_allowed")


def test_a_creator_learns_no_joiner_s_hand_nor_the_seed_of_a_running_game(
        client: FlaskClient, db: Engine) -> None:
    key, tried = _key(db), 42
    seats = [{"kind": "human"}, {"kind": "open"}, AI]
    _problem(client.post("/v1/games", headers=key, json={"preset": "classic", "seed": tried,
                                                         "seats": seats}),
             400, "seed_not_allowed")
    created = client.post("/v1/games", headers=key, json={"preset": "classic",
                                                          "seats": seats}).get_json()
    game_id, mine = created["game"]["game_id"], created["tokens"]["0"]
    joined = client.post("/v1/join", headers=_key(db), json={"code": created["invite"]})
    assert joined.status_code == 201, joined.get_json()
    hand = joined.get_json()["game"]["view"]["hand"]
    guessed = observe(new_series(Rules.preset("classic", players=3), tried), 1).hand
    assert hand != [str(c) for c in guessed]
    seed = _seed(db, game_id)
    learnt = [client.get(f"/v1/games/{game_id}", headers=key),
              client.get(f"/v1/games/{game_id}", headers=bearer(mine)),
              client.get(f"/v1/games/{game_id}/rounds/1/replay", headers=bearer(mine)),
              client.get(f"/v1/games/{game_id}/events", headers=bearer(mine)),
              client.get("/v1/games/export", headers=key),
              client.post(f"/v1/games/{game_id}/hint", headers=bearer(mine), json={}),
              client.post(f"/v1/games/{game_id}/rounds/1/review", headers=bearer(mine))]
    for response in learnt:  # nothing says the seed, nor every hand
        text = response.get_data(as_text=True)
        assert str(seed) not in text and '"hands"' not in text
    assert learnt[0].get_json()["view"]["hand"] == []  # the owner's key: a spectator
    assert learnt[4].get_data(as_text=True) == ""  # a series under way is never exported
    assert learnt[6].status_code == 409


def _seed(db: Engine, game_id: str) -> int:
    with db.connect() as connection:
        return int(connection.scalar(select(GameRow.seed).where(GameRow.id == game_id)))


def test_a_seeded_game_of_the_creator_and_ai_says_so_everywhere_and_takes_nobody(
        client: FlaskClient, db: Engine) -> None:
    key = _key(db)
    made = client.post("/v1/games", headers=key, json={
        "preset": "classic", "seed": 42, "rounds": 1, "seats": [{"kind": "human"}, AI, AI]})
    assert made.status_code == 201, made.get_json()
    drawn = client.post("/v1/games", headers=key, json={"preset": "classic",
                                                        "seats": [AI, AI, AI]}).get_json()
    game_id, token = made.get_json()["game"]["game_id"], made.get_json()["tokens"]["0"]
    assert made.get_json()["game"]["seeded"] is True and drawn["game"]["seeded"] is False
    assert client.get(f"/v1/games/{game_id}", headers=key).get_json()["seeded"] is True
    listed = {g["game_id"]: g["seeded"] for g in
              client.get("/v1/games", headers=key).get_json()["games"]}
    assert listed == {game_id: True, drawn["game"]["game_id"]: False}
    _problem(client.post(f"/v1/games/{game_id}/invite", headers=key), 409, "game_seeded")
    play_until(client, game_id, {"0": token}, rounds_over=1, headers=key)
    exported = [json.loads(line) for line in
                client.get("/v1/games/export", headers=key).get_data(as_text=True).split("\n")
                if line]
    assert {line["game_id"]: line["seeded"] for line in exported}[game_id] is True
    again = client.post(f"/v1/games/{game_id}/rematch", headers=bearer(token))
    assert again.status_code == 201, again.get_json()
    assert again.get_json()["game"]["seeded"] is False  # its deal is drawn
    assert _seed(db, again.get_json()["game"]["game_id"]) != 42


def test_a_seeded_game_refuses_a_joiner_even_with_a_seat_open(client: FlaskClient,
                                                              db: Engine) -> None:
    """(A seeded game never has an open seat; one stored so anyway is refused too.)"""
    state, events = new_series_with_events(Rules.preset("classic", players=3), 42)
    game = Game(uuid.uuid4().hex, "classic", (Seat(0, "human", host=True), Seat(1, "open"),
                                              Seat(2, "ai", "easy")), state,
                table=Table("waiting", "public", seeded=True))
    code = new_invite_code()
    with Store(db).uow() as uow:
        uow.games.add(game, events, None, [], invite_hash(code))
        uow.commit()
    _problem(client.post("/v1/join", json={"code": code}), 409, "game_seeded")
