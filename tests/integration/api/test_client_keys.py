"""Client keys over HTTP, with the service in keys mode (``PRESIDENT_AUTH=keys``, what
deploy/ sets), on SQLite and PostgreSQL: who needs a key, what a key may do and see,
and a revoked key."""

from __future__ import annotations

from typing import Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from services.api import auth
from services.commands import CreateKey
from services.handlers.keys import create_key, revoke_key
from services.store import Store

HUMANS = [{"kind": "human"}] * 4
AIS = [{"kind": "ai", "engine": "easy"}] * 4
ALL = ("games:create-human", "games:create-ai", "games:read")


@pytest.fixture
def client(db: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    monkeypatch.setenv("PRESIDENT_AUTH", "keys")
    with inline_app(db).test_client() as c:
        yield c


def _key(db: Engine, scopes: tuple[str, ...] = ALL) -> tuple[str, dict[str, str]]:
    key, secret = create_key(CreateKey("test app", scopes), Store(db).uow())
    return key.id, {"X-API-Key": secret}


def _create(client: FlaskClient, headers: dict[str, str], seats: list[dict[str, str]] = HUMANS
            ) -> dict:  # type: ignore[type-arg]
    response = client.post("/v1/games", json={"preset": "classic", "seats": seats},
                           headers=headers)
    assert response.status_code == 201, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def test_without_a_key_only_the_public_routes_and_seat_tokens_answer(
        client: FlaskClient, db: Engine) -> None:
    for path in ("/v1/rules", "/healthz", "/openapi.json", "/docs", "/"):
        assert client.get(path).status_code == 200, path
    for method, path in (("post", "/v1/games"), ("get", "/v1/games")):
        refused = getattr(client, method)(path, json={"preset": "classic", "seats": HUMANS})
        assert refused.status_code == 401 and refused.get_json()["code"] == "key_required"
    _, headers = _key(db)
    created = _create(client, headers)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    spectator = client.get(f"/v1/games/{game_id}")
    assert spectator.status_code == 401 and spectator.get_json()["code"] == "key_required"
    mine = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
    assert mine.status_code == 200 and mine.get_json()["view"]["seat"] == 0
    events = client.get(f"/v1/games/{game_id}/events",
                        headers={"Authorization": f"Bearer {token}"})
    assert events.status_code == 200


def test_a_key_sees_its_own_games_and_not_another_s(client: FlaskClient, db: Engine) -> None:
    _, mine = _key(db)
    _, theirs = _key(db)
    my_game = _create(client, mine)["game"]["game_id"]
    their_game = _create(client, theirs)["game"]["game_id"]
    listed = client.get("/v1/games", headers=mine).get_json()["games"]
    assert [g["game_id"] for g in listed] == [my_game]
    assert client.get(f"/v1/games/{my_game}", headers=mine).status_code == 200
    hidden = client.get(f"/v1/games/{their_game}", headers=mine)
    assert hidden.status_code == 404 and hidden.get_json()["code"] == "game_not_found"
    assert client.get(f"/v1/games/{their_game}/events", headers=mine).status_code == 404


def test_scopes_decide_which_games_a_key_may_create(client: FlaskClient, db: Engine) -> None:
    _, humans_only = _key(db, ("games:create-human",))
    refused = client.post("/v1/games", json={"preset": "classic", "seats": AIS},
                          headers=humans_only)
    assert refused.status_code == 403 and refused.get_json()["code"] == "missing_scope"
    _create(client, humans_only)
    listing = client.get("/v1/games", headers=humans_only)
    assert listing.status_code == 403 and listing.get_json()["code"] == "missing_scope"


def test_an_unknown_or_revoked_key_is_refused(client: FlaskClient, db: Engine,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(auth, "TRUST_S", 0.0)  # (a live key is otherwise kept 5 s)
    key_id, headers = _key(db)
    _create(client, headers)
    unknown = client.get("/v1/games", headers={"X-API-Key": "pk_nothing"})
    assert unknown.status_code == 401 and unknown.get_json()["code"] == "bad_key"
    revoke_key(key_id, Store(db).uow())
    revoked = client.post("/v1/games", json={"preset": "classic", "seats": HUMANS},
                          headers=headers)
    assert revoked.status_code == 401 and revoked.get_json()["code"] == "bad_key"


def test_the_document_says_a_key_is_required_in_keys_mode_only(client: FlaskClient,
                                                                db: Engine) -> None:
    from openapi_spec_validator import validate

    from apps import inline_app as open_app

    def requirements(spec: dict) -> list:  # type: ignore[type-arg]
        return spec["paths"]["/v1/games"]["post"]["security"]  # type: ignore[no-any-return]

    keys_spec = client.get("/openapi.json").get_json()
    validate(keys_spec)
    assert requirements(keys_spec) == [{"ApiKeyAuth": []}]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PRESIDENT_AUTH", "open")
        open_spec = open_app(db).test_client().get("/openapi.json").get_json()
    assert requirements(open_spec) == [{"ApiKeyAuth": []}, {}]
