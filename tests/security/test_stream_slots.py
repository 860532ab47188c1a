"""The party: spectators (and a key watching its tickets) holding every stream they can.
A seated player keeps its own slots on its own game whatever spectators hold; a seat's
own budget is by seat, so leaving and joining again buys none more; spectators are
bounded per game and per client (key, else address); a matchmaking ticket's one-time
token is spent only by a stream that got a slot."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from played import bearer
from services.commands import CreateKey
from services.domain import SCOPES
from services.handlers.keys import create_key
from services.handlers.matchmaking import match
from services.store import Store

AI = {"kind": "ai", "engine": "easy"}


def _client(db: Engine, monkeypatch: pytest.MonkeyPatch, per_seat: str = "2",
            per_game: str = "3", per_client: str = "8") -> FlaskClient:
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_SEAT", per_seat)
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_GAME", per_game)
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_CLIENT", per_client)
    return inline_app(db).test_client()


def _key(db: Engine) -> dict[str, str]:
    _, secret = create_key(CreateKey("watcher", SCOPES), Store(db).uow())
    return {"X-API-Key": secret}


def _stream(client: FlaskClient, game_id: str, address: str, **headers: str) -> Any:
    return client.get(f"/v1/games/{game_id}/events/stream", headers=headers, buffered=False,
                      environ_base={"REMOTE_ADDR": address})


def _closed(responses: list[Any]) -> None:
    for response in reversed(responses):  # (the test client nests their request contexts)
        response.close()


def test_spectators_filling_a_game_leave_its_players_their_own_streams(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, per_game="3")
    created = client.post("/v1/games", json={"preset": "classic", "seats": [
        {"kind": "human"}, {"kind": "human"}, AI]}).get_json()
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    watching = [_stream(client, game_id, f"203.0.113.{n}") for n in range(3)]
    assert [r.status_code for r in watching] == [200] * 3
    refused = _stream(client, game_id, "203.0.113.9")
    assert refused.status_code == 429 and refused.get_json()["code"] == "too_many_streams"
    # a made-up token is a spectator's: no seat's slots for it
    made_up = _stream(client, game_id, "203.0.113.10",
                      Authorization="Bearer " + "a" * 43)
    assert made_up.status_code in (401, 429)
    playing = [_stream(client, game_id, "198.51.100.1", **bearer(tokens[seat]))
               for seat in ("0", "1")]
    assert [r.status_code for r in playing] == [200, 200]
    _closed(watching + playing)


def test_a_seat_holds_its_own_budget_and_joining_again_buys_none_more(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, per_seat="2")
    owner = _key(db)
    table = client.post("/v1/games", headers=owner, json={"preset": "classic", "seats": [
        {"kind": "open"}, AI, AI]}).get_json()
    game_id = table["game"]["game_id"]

    def joined() -> str:
        seated = client.post("/v1/join", headers=owner,
                             json={"code": table["invite"], "player_id": "ann"})
        assert seated.status_code == 201, seated.get_json()
        return seated.get_json()["token"]  # type: ignore[no-any-return]

    first = joined()
    held = [_stream(client, game_id, "198.51.100.1", **bearer(first)) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    again = _stream(client, game_id, "198.51.100.1", **bearer(joined()))
    assert again.status_code == 429 and again.get_json()["code"] == "too_many_streams"
    _closed(held)


def test_spectators_are_bounded_per_address_and_per_key(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, per_game="20", per_client="2")
    game_id = client.post("/v1/games", json={"preset": "classic", "seats": [
        {"kind": "human"}, AI, AI]}).get_json()["game"]["game_id"]
    one_address = [_stream(client, game_id, "203.0.113.5",
                           Authorization="Bearer " + f"{n:043d}") for n in range(3)]
    # (made-up tokens: refused, or counted as the address's; never a fresh budget)
    assert [r.status_code for r in one_address].count(200) <= 2
    plain = [_stream(client, game_id, "203.0.113.6") for _ in range(3)]
    assert [r.status_code for r in plain] == [200, 200, 429]
    watcher = _key(db)
    keyed = [_stream(client, game_id, f"192.0.2.{n}", **watcher) for n in range(3)]
    assert [r.status_code for r in keyed] == [200, 200, 429]  # one key, many addresses
    _closed(one_address + plain + keyed)


def test_a_ticket_stream_refused_a_slot_leaves_its_one_time_token_to_be_read(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, per_client="1")
    owner = _key(db)
    opened = client.post("/v1/matchmaking/tickets", headers=owner, json={
        "player_id": "ann", "players": 3, "wait_s": 1, "fill": "easy"}).get_json()
    vault = client.application.extensions["president"].webhooks.vault
    match(Store(db).uow(), vault, now=datetime.now(timezone.utc) + timedelta(seconds=2))
    other = client.post("/v1/matchmaking/tickets", headers=owner,
                        json={"player_id": "bob"}).get_json()
    holding = client.get(f"/v1/matchmaking/tickets/{other['id']}/stream", headers=owner,
                         buffered=False)  # the key's one slot
    assert holding.status_code == 200
    url = f"/v1/matchmaking/tickets/{opened['id']}"
    refused = client.get(f"{url}/stream", headers=owner)
    assert refused.status_code == 429 and refused.get_json()["code"] == "too_many_streams"
    holding.close()
    shown = client.get(url, headers=owner).get_json()
    assert shown["state"] == "matched" and shown["token"]  # not spent by the refusal
