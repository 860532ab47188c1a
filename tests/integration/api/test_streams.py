"""Open event streams and long polls are bounded per game and per client, and a slot
comes back when its response is closed, however the client left."""

from __future__ import annotations

import threading

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from services.api.streams import Slots

HUMANS = [{"kind": "human"}] * 4


def _setup(db: Engine, monkeypatch: pytest.MonkeyPatch, per_game: str, per_client: str
           ) -> tuple[FlaskClient, Slots, str, dict[str, str]]:
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_GAME", per_game)
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_CLIENT", per_client)
    app = inline_app(db)
    client = app.test_client()
    created = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS}).get_json()
    return client, app.extensions["president.streams"], created["game"]["game_id"], \
        created["tokens"]


def _refused(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 429 and response.get_json()["code"] == "too_many_streams"


def test_a_client_holds_so_many_streams_and_gets_its_slot_back_on_close(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client, slots, game_id, _ = _setup(db, monkeypatch, per_game="10", per_client="1")
    first = client.get(f"/v1/games/{game_id}/events/stream", buffered=False)
    assert first.status_code == 200 and slots.open() == 1
    _refused(client.get(f"/v1/games/{game_id}/events/stream", buffered=False))
    _refused(client.get(f"/v1/games/{game_id}/events?wait=1"))  # a long poll too
    assert client.get(f"/v1/games/{game_id}/events").status_code == 200  # no wait: no slot
    first.close()  # the client went away
    assert slots.open() == 0
    second = client.get(f"/v1/games/{game_id}/events/stream", buffered=False)
    assert second.status_code == 200
    second.close()
    assert slots.open() == 0


def test_a_game_holds_so_many_spectators_streams_and_its_seats_their_own(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client, slots, game_id, tokens = _setup(db, monkeypatch, per_game="2", per_client="5")
    opened = [client.get(f"/v1/games/{game_id}/events/stream", buffered=False)
              for _ in range(2)]
    assert [r.status_code for r in opened] == [200, 200]
    _refused(client.get(f"/v1/games/{game_id}/events/stream"))
    seated = client.get(f"/v1/games/{game_id}/events/stream", buffered=False,
                        headers={"Authorization": f"Bearer {tokens['2']}"})
    assert seated.status_code == 200
    for response in reversed([*opened, seated]):  # (the test client nests their contexts)
        response.close()
    assert slots.open() == 0


def test_a_long_poll_holds_its_slot_while_it_waits(db: Engine,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    client, slots, game_id, _ = _setup(db, monkeypatch, per_game="10", per_client="1")
    waiting = threading.Thread(target=client.get,
                               args=(f"/v1/games/{game_id}/events?after=99&wait=2",))
    waiting.start()
    try:
        for _ in range(200):
            if slots.open():
                break
            threading.Event().wait(0.01)
        assert slots.open() == 1
        _refused(client.get(f"/v1/games/{game_id}/events?after=99&wait=1"))
    finally:
        waiting.join(5)
    assert slots.open() == 0


def test_a_slot_given_back_twice_counts_once() -> None:
    slots = Slots(per_game=1, per_client=1)
    give_back = slots.take("g", "c")
    give_back()
    give_back()
    assert slots.open() == 0
    slots.take("g", "c")  # free again, exactly once
    with pytest.raises(Exception, match="already"):
        slots.take("g", "d")
