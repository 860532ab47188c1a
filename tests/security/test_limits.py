"""The party: an anonymous caller or a seat holder trying to get past the rate limits with
made-up, malformed, expired and other games' tokens; a seat holder leaving and joining
again for a fresh hint allowance; seat tokens spending their game's owner's allowance
(and nobody else's)."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from played import bearer
from services.commands import CreateKey
from services.domain import SCOPES
from services.handlers.keys import create_key
from services.store import Store

AI = {"kind": "ai", "engine": "easy"}


def _client(db: Engine, monkeypatch: pytest.MonkeyPatch, **settings: str) -> FlaskClient:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", "memory://")
    for name, value in settings.items():
        monkeypatch.setenv(f"PRESIDENT_{name.upper()}", value)
    return inline_app(db).test_client()


def _key(db: Engine) -> dict[str, str]:
    _, secret = create_key(CreateKey("owner", SCOPES), Store(db).uow())
    return {"X-API-Key": secret}


def _game(client: FlaskClient, seats: list[dict[str, Any]], **headers: str) -> Any:
    created = client.post("/v1/games", json={"preset": "classic", "seats": seats},
                          headers=headers)
    assert created.status_code == 201, created.get_json()
    return created.get_json()


def _codes(responses: list[Any]) -> list[int]:
    return [r.status_code for r in responses]


def test_made_up_expired_and_other_games_tokens_meet_the_address_s_limit(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, rate_anonymous="30/minute", rate_token="30/minute")
    target = _game(client, [{"kind": "human"}, AI, AI])["game"]["game_id"]
    other = _game(client, [{"kind": "human"}, AI, AI])["tokens"]["0"]
    def spare() -> str:  # a token that opened a seat once and opens nothing now
        table = _game(client, [{"kind": "human"}, {"kind": "open"}, AI])
        token = table["tokens"]["0"]
        client.post(f"/v1/games/{table['game']['game_id']}/leave", headers=bearer(token))
        return token

    expired = spare()
    tokens = [secrets.token_urlsafe(32) for _ in range(118)] + [other, expired]
    reads = [client.get(f"/v1/games/{target}", headers=bearer(token),
                        environ_base={"REMOTE_ADDR": "198.51.100.7"}) for token in tokens]
    assert 429 in _codes(reads)
    assert _codes(reads).count(429) >= 120 - 30  # the address's 30 a minute, all told
    assert all(r.get_json()["code"] == "rate_limited" for r in reads if r.status_code == 429)


def test_a_malformed_token_is_refused_before_any_game_is_read(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch)
    game_id = _game(client, [{"kind": "human"}, AI, AI])["game"]["game_id"]
    reads = client.application.extensions["president"].reads
    looked: list[str] = []
    real = reads.get
    monkeypatch.setattr(reads, "get", lambda gid, *a: looked.append(gid) or real(gid, *a))
    for header in ("Bearer short", "Bearer " + "é" * 43, "Basic dXNlcjpwYXNz", "Bearer",
                   "Bearer " + "a" * 44):
        for target in (game_id, "0" * 32):  # the same answer, the game there or not
            answer = client.get(f"/v1/games/{target}", headers={"Authorization": header})
            assert answer.status_code == 401, (header, answer.get_json())
            assert answer.get_json()["code"] == "bad_token"
    assert looked == []


def test_seat_tokens_spend_their_game_s_owner_s_allowance_and_nobody_else_s(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, rate_key="6/minute")
    owner, bystander = _key(db), _key(db)
    created = _game(client, [{"kind": "human"}, AI, AI], **owner)  # the owner's 1st
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    for _ in range(10):  # made-up tokens on the owner's game: counted against nobody's key
        client.get(f"/v1/games/{game_id}", headers=bearer(secrets.token_urlsafe(32)))
    assert client.get("/v1/games", headers=owner).status_code == 200  # the 2nd
    seat_reads = [client.get(f"/v1/games/{game_id}", headers=bearer(token))
                  for _ in range(4)]  # its seat's: the 3rd to the 6th
    assert _codes(seat_reads) == [200] * 4
    refused = client.get("/v1/games", headers=owner)
    assert refused.status_code == 429 and refused.headers["RateLimit-Limit"] == "6"
    assert client.get(f"/v1/games/{game_id}", headers=bearer(token)).status_code == 429
    assert client.get("/v1/games", headers=bystander).status_code == 200


def _hints(client: FlaskClient, game_id: str, token: str, n: int) -> list[int]:
    return _codes([client.post(f"/v1/games/{game_id}/hint", headers=bearer(token),
                               json={"level": "easy"}) for _ in range(n)])


def test_leaving_and_joining_again_gives_no_fresh_hint_allowance(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, hints_rate_seat="3/hour", hints_rate_key="100/hour")
    owner = _key(db)
    table = _game(client, [{"kind": "open"}, AI, AI], **owner)
    game_id, code = table["game"]["game_id"], table["invite"]

    def joined() -> str:
        seated = client.post("/v1/join", json={"code": code, "player_id": "ann"},
                             headers=owner)
        assert seated.status_code == 201, seated.get_json()
        return seated.get_json()["token"]  # type: ignore[no-any-return]

    first = joined()
    assert 429 not in _hints(client, game_id, first, 3)  # (200, or 409 out of turn)
    again = joined()  # the same seat, a new token
    assert again != first
    assert _hints(client, game_id, again, 1) == [429]


def test_hints_count_against_the_game_s_owner_whoever_asks(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(db, monkeypatch, hints_rate_seat="100/hour", hints_rate_key="3/hour")
    owner, bystander = _key(db), _key(db)
    created = _game(client, [{"kind": "human"}, {"kind": "human"}, AI], **owner)
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    # the seats ask with their tokens alone, no key: still the owner's allowance
    assert 429 not in _hints(client, game_id, tokens["0"], 2) + \
        _hints(client, game_id, tokens["1"], 1)
    assert _hints(client, game_id, tokens["0"], 1) == [429]
    theirs = _game(client, [{"kind": "human"}, AI, AI], **bystander)
    assert 429 not in _hints(client, theirs["game"]["game_id"], theirs["tokens"]["0"], 3)


def test_memory_counts_are_each_process_s_own(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    # docs/configuration.md says so: memory:// counts per process, Redis for several
    first, second = (_client(db, monkeypatch, rate_anonymous="2/minute") for _ in range(2))
    assert _codes([first.get("/v1/rules") for _ in range(3)]) == [200, 200, 429]
    assert _codes([second.get("/v1/rules") for _ in range(2)]) == [200, 200]
