"""The party: a key owner making more games than its quotas allow, by every way there is
to make one (matchmaking, rematch, a quota of 0 read as "the default"), and an operator
issuing a key with a negative quota."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, select

from played import bearer, play_until
from services.api.problems import STATUS
from services.commands import CreateKey
from services.domain import SCOPES, ApiKey
from services.errors import BadQuota
from services.handlers.keys import create_key, list_keys
from services.handlers.matchmaking import match
from services.handlers.quotas import hour_of
from services.store import Store
from services.store.models import GameRow

AI = {"kind": "ai", "engine": "expert"}


def _key(db: Engine, **quotas: Any) -> tuple[ApiKey, dict[str, str]]:
    key, secret = create_key(CreateKey("greedy", SCOPES, **quotas), Store(db).uow())
    return key, {"X-API-Key": secret}


def _problem(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, response.get_json()
    assert response.get_json()["code"] == code, response.get_json()


def _game(client: FlaskClient, key: dict[str, str], **extra: Any) -> Any:
    return client.post("/v1/games", headers=key, json={
        "preset": "classic", "seats": [{"kind": "human"}, AI, AI], **extra})


def _ticket(client: FlaskClient, key: dict[str, str], player: str) -> Any:
    return client.post("/v1/matchmaking/tickets", headers=key,
                       json={"player_id": player, "players": 3, "fill": "expert", "wait_s": 1})


def test_matchmaking_past_the_games_a_key_may_hold_is_refused(client: FlaskClient,
                                                              db: Engine) -> None:
    _, key = _key(db, max_active_games=1)
    assert _game(client, key).status_code == 201
    _problem(_ticket(client, key, "p1"), 429, "quota_exceeded")


def test_a_rematch_past_the_quota_is_refused(client: FlaskClient, db: Engine) -> None:
    _, key = _key(db, max_active_games=1)
    made = _game(client, key, rounds=1).get_json()
    game_id, token = made["game"]["game_id"], made["tokens"]["0"]
    play_until(client, game_id, {"0": token}, rounds_over=1, headers=key)
    assert _game(client, key).status_code == 201  # the one game it may hold
    _problem(client.post(f"/v1/games/{game_id}/rematch", headers=bearer(token)), 429,
             "quota_exceeded")


def test_ai_time_used_up_blocks_matchmade_expert_tables_and_theirs_is_charged(
        client: FlaskClient, db: Engine) -> None:
    owner, key = _key(db, ai_seconds_per_hour=30)
    assert _ticket(client, key, "p1").status_code == 201
    vault = client.application.extensions["president"].webhooks.vault
    assert match(Store(db).uow(), vault,
                 now=datetime.now(timezone.utc) + timedelta(seconds=5)) == 1
    with db.connect() as connection:  # the matchmade game is held to the key's AI time
        assert connection.execute(select(GameRow.owner, GameRow.ai_seconds_per_hour)).one() \
            == (owner.id, 30)
    with Store(db).uow() as unit:
        unit.quotas.add_ai_time(owner.id, hour_of(datetime.now(timezone.utc)), 30.0)
        unit.commit()
    _problem(_ticket(client, key, "p2"), 429, "quota_exceeded")


@pytest.mark.parametrize("quota", ["max_active_games", "ai_seconds_per_hour"])
def test_a_quota_of_zero_means_none_at_all(client: FlaskClient, db: Engine,
                                           quota: str) -> None:
    _, key = _key(db, **{quota: 0})
    _problem(_game(client, key), 429, "quota_exceeded")
    _problem(_ticket(client, key, "p1"), 429, "quota_exceeded")
    assert client.get("/v1/games", headers=key).get_json()["games"] == []


@pytest.mark.parametrize("quota", ["max_active_games", "ai_seconds_per_hour"])
def test_a_negative_quota_is_refused_and_no_key_is_made(db: Engine, quota: str) -> None:
    with pytest.raises(BadQuota) as refused:
        create_key(CreateKey("odd", SCOPES, **{quota: -1}), Store(db).uow())
    assert refused.value.code == "bad_quota"
    assert next(s for kind, s in STATUS if isinstance(refused.value, kind)) == 400
    assert list_keys(Store(db).uow()) == []
