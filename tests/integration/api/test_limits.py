"""Rate limits over HTTP: per client address, per seat token, per client key (and a key's
own rate); 429 problem+json with Retry-After and the RateLimit headers, nothing done;
counters shared through Redis between API processes; a storage that fails lets requests
through."""

from __future__ import annotations

import os
import uuid

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.store import Store

HUMANS = [{"kind": "human"}] * 4
REDIS = os.environ.get("PRESIDENT_TEST_REDIS_URL")


def _app(db: Engine, monkeypatch: pytest.MonkeyPatch, **rates: str) -> FlaskClient:
    for name, rate in rates.items():
        monkeypatch.setenv(f"PRESIDENT_RATE_{name.upper()}", rate)
    return inline_app(db).test_client()


def _refused(response) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 429, response.get_json()
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["code"] == "rate_limited"
    assert 1 <= int(response.headers["Retry-After"]) <= 61
    assert response.headers["RateLimit-Remaining"] == "0"


def test_an_address_past_its_rate_gets_429_and_nothing_is_created(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _app(db, monkeypatch, anonymous="3/minute")
    seen = [client.post("/v1/games", json={"preset": "classic", "seats": HUMANS})
            for _ in range(3)]
    assert [r.status_code for r in seen] == [201, 201, 201]
    refused = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS})
    _refused(refused)
    assert refused.headers["RateLimit-Limit"] == "3"
    with Store(db).uow() as uow:
        assert len(uow.listing.ids()) == 3
    for path in ("/healthz", "/docs", "/openapi.json", "/"):  # not counted
        assert client.get(path).status_code == 200, path


def test_each_seat_token_has_its_own_count(db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _app(db, monkeypatch, token="2/minute")
    created = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS}).get_json()
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    for _ in range(2):
        assert client.get(f"/v1/games/{game_id}",
                          headers={"Authorization": f"Bearer {tokens['0']}"}).status_code == 200
    _refused(client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens['0']}"}))
    other = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens['1']}"})
    assert other.status_code == 200


def test_a_key_counts_on_its_own_and_may_have_its_own_rate(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _app(db, monkeypatch, key="5/minute")
    _, slow = create_key(CreateKey("slow", ("games:read",), rate="2/minute"), Store(db).uow())
    _, usual = create_key(CreateKey("usual", ("games:read",)), Store(db).uow())
    for _ in range(2):
        assert client.get("/v1/games", headers={"X-API-Key": slow}).status_code == 200
    _refused(client.get("/v1/games", headers={"X-API-Key": slow}))
    for _ in range(5):
        assert client.get("/v1/games", headers={"X-API-Key": usual}).status_code == 200
    refused = client.get("/v1/games", headers={"X-API-Key": usual})
    _refused(refused)
    assert refused.headers["RateLimit-Limit"] == "5"  # the settings' rate, not the other's


@pytest.mark.skipif(REDIS is None, reason="PRESIDENT_TEST_REDIS_URL is not set (.ci/run sets it)")
def test_on_redis_every_api_process_shares_the_count(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", f"{REDIS}/14")
    # a fresh address of its own, so that no earlier run's count is in the way
    address = f"10.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}.1"
    first, second = (_app(db, monkeypatch, anonymous="3/minute") for _ in range(2))
    environ = {"REMOTE_ADDR": address}
    assert first.get("/v1/rules", environ_base=environ).status_code == 200
    assert second.get("/v1/rules", environ_base=environ).status_code == 200
    assert first.get("/v1/rules", environ_base=environ).status_code == 200
    _refused(second.get("/v1/rules", environ_base=environ))


def test_a_rate_storage_that_fails_lets_requests_through(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", "redis://127.0.0.1:1/0")  # nothing there
    client = _app(db, monkeypatch, anonymous="1/minute")
    assert [client.get("/v1/rules").status_code for _ in range(3)] == [200, 200, 200]


def test_a_client_past_its_quota_of_games_under_way_gets_429_and_nothing_created(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_QUOTA_GAMES_ANONYMOUS", "2")
    client = inline_app(db).test_client()
    for _ in range(2):
        assert client.post("/v1/games", json={"preset": "classic",
                                              "seats": HUMANS}).status_code == 201
    over = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS})
    assert over.status_code == 429 and over.get_json()["code"] == "quota_exceeded"
    elsewhere = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS},
                            environ_base={"REMOTE_ADDR": "192.0.2.9"})
    assert elsewhere.status_code == 201  # another address holds its own
    _, secret = create_key(CreateKey("one at a time", ("games:create-human",),
                                     max_active_games=1), Store(db).uow())
    keyed = {"X-API-Key": secret}
    assert client.post("/v1/games", json={"preset": "classic", "seats": HUMANS},
                       headers=keyed).status_code == 201
    again = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS}, headers=keyed)
    assert again.status_code == 429 and again.get_json()["code"] == "quota_exceeded"
    with Store(db).uow() as uow:
        assert len(uow.listing.ids()) == 4


def test_games_with_ai_seats_need_ai_time_left_in_the_hour(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_QUOTA_AI_SECONDS_ANONYMOUS", "0")  # none left at all
    client = inline_app(db).test_client()
    seats = [{"kind": "human"}] + [{"kind": "ai", "engine": "expert"}] * 3
    refused = client.post("/v1/games", json={"preset": "classic", "seats": seats})
    assert refused.status_code == 429 and refused.get_json()["code"] == "quota_exceeded"
    assert "AI thinking" in refused.get_json()["detail"]
    assert client.post("/v1/games", json={"preset": "classic",
                                          "seats": HUMANS}).status_code == 201
    with Store(db).uow() as uow:
        assert len(uow.listing.ids()) == 1
