"""What a cache may keep (docs/api.md): a view is ``private, no-cache`` with its ETag;
an answer that says nothing else, those that show a seat's token or a webhook's secret
among them, is ``no-store``."""

from __future__ import annotations

from flask.testing import FlaskClient
from sqlalchemy import Engine

from played import bearer
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.store import Store

GAME = {"preset": "classic", "seats": [{"kind": "human"}, {"kind": "ai", "engine": "easy"},
                                       {"kind": "ai", "engine": "easy"}]}


def test_a_token_or_a_secret_shown_once_is_kept_by_no_cache(
        client: FlaskClient, db: Engine) -> None:
    _, secret = create_key(CreateKey("an app", ("games:create-human", "games:create-ai",
                                                "games:read", "webhooks")), Store(db).uow())
    key = {"X-API-Key": secret}
    made = client.post("/v1/games", json=GAME, headers=key)
    assert made.status_code == 201 and made.headers["Cache-Control"] == "no-store"
    hook = client.post("/v1/webhooks", headers=key, json={
        "url": "http://127.0.0.1:9/hook", "event_types": ["round.ended"]})
    assert hook.status_code == 201 and hook.headers["Cache-Control"] == "no-store"
    rotated = client.post(f"/v1/webhooks/{hook.get_json()['webhook']['id']}/rotate-secret",
                          headers=key)
    assert rotated.headers["Cache-Control"] == "no-store"
    game = made.get_json()
    view = client.get(f"/v1/games/{game['game']['game_id']}",
                      headers=bearer(game["tokens"]["0"]))
    assert view.headers["Cache-Control"] == "private, no-cache" and view.headers["ETag"]
