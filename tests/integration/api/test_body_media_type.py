"""A request body is read as JSON only when it says it is JSON (docs/api.md, Errors): on
any route, a body of another type (or of none) is a 415 problem
``unsupported_media_type`` and changes nothing; ``application/json`` with a charset is
JSON; a POST that takes no body still needs none, and no Content-Type either."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, func, select

from played import bearer
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.store import Store
from services.store.models import GameRow
from test_http import assert_problem

GAME = {"preset": "classic", "seats": [{"kind": "human"}] * 4}
CHARSET = "application/json; charset=utf-8"
# Not JSON as far as these routes go: a merge patch (+json) means what they do not do.
REFUSED = ["text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded",
           "application/merge-patch+json", "application/jsonx", None]


def _key(db: Engine) -> dict[str, str]:
    _, secret = create_key(CreateKey("an app", ("games:create-human", "games:read",
                                                "webhooks")), Store(db).uow())
    return {"X-API-Key": secret}


def _games(db: Engine) -> int:
    with db.connect() as c:
        return c.scalar(select(func.count()).select_from(GameRow)) or 0


def _sent(content_type: str | None, body: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments of the test client for ``body``'s JSON under ``content_type``
    (None: no Content-Type header at all)."""
    sent: dict[str, Any] = {"data": json.dumps(body)}
    if content_type is not None:
        sent["content_type"] = content_type
    return sent


def _refused(response: Any, accept: str) -> None:
    assert_problem(response, 415, "unsupported_media_type")
    assert response.headers[accept] == "application/json"


@pytest.mark.parametrize("content_type", REFUSED)
def test_a_game_sent_as_another_type_is_refused_and_nothing_is_created(
        client: FlaskClient, db: Engine, content_type: str | None) -> None:
    sent = client.post("/v1/games", **_sent(content_type, GAME))
    if content_type is None:
        assert "Content-Type" not in sent.request.headers
    _refused(sent, "Accept-Post")
    assert _games(db) == 0
    assert client.get("/v1/games").get_json()["games"] == []
    made = client.post("/v1/games", **_sent(CHARSET, GAME))  # the same bytes, said to be JSON
    assert made.status_code == 201, made.get_json()
    assert _games(db) == 1


def test_a_chunked_body_of_another_type_is_refused_too(client: FlaskClient, db: Engine) -> None:
    # As a WSGI server hands one on: no length, the stream ends where the body does.
    sent = client.post("/v1/games", input_stream=io.BytesIO(json.dumps(GAME).encode()),
                       content_type="text/plain", headers={"Transfer-Encoding": "chunked"},
                       environ_overrides={"CONTENT_LENGTH": "", "wsgi.input_terminated": True})
    assert sent.request.content_length is None
    _refused(sent, "Accept-Post")
    assert _games(db) == 0


def test_a_webhook_registered_or_patched_as_text_plain_is_refused_and_unchanged(
        client: FlaskClient, db: Engine) -> None:
    key = _key(db)
    hook = {"url": "http://127.0.0.1:9/hook", "event_types": ["round.ended"],
            "description": "first"}
    _refused(client.post("/v1/webhooks", headers=key, **_sent("text/plain", hook)),
             "Accept-Post")
    assert client.get("/v1/webhooks", headers=key).get_json()["webhooks"] == []
    made = client.post("/v1/webhooks", headers=key, **_sent(CHARSET, hook))
    assert made.status_code == 201, made.get_json()
    url = f"/v1/webhooks/{made.get_json()['webhook']['id']}"
    before = client.get(url, headers=key).get_json()
    change = {"description": "second", "event_types": ["series.ended"]}
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        _refused(client.patch(url, headers=key, **_sent(content_type, change)), "Accept-Patch")
        assert client.get(url, headers=key).get_json() == before
    patched = client.patch(url, headers=key, **_sent(CHARSET, change))
    assert patched.status_code == 200, patched.get_json()
    after = client.get(url, headers=key).get_json()
    assert (after["description"], after["event_types"]) == ("second", ["series.ended"])


def test_posts_that_take_no_body_need_none_beside_a_refused_body(
        client: FlaskClient, db: Engine) -> None:
    key = _key(db)
    table = client.post("/v1/games", headers=key, json={
        "preset": "classic", "seats": [{"kind": "human"}] + [{"kind": "open"}] * 3})
    assert table.status_code == 201, table.get_json()
    game_id, host = table.get_json()["game"]["game_id"], table.get_json()["tokens"]["0"]
    start = f"/v1/games/{game_id}/start"
    _refused(client.post(start, headers=bearer(host), **_sent("text/plain", {"fill": "easy"})),
             "Accept-Post")
    assert client.get(f"/v1/games/{game_id}", headers=key).get_json()["status"] == "waiting"
    # what the play page (web/play/api.js) sends: no body, no Content-Type
    for path in ("invite", "cancel"):
        answer = client.post(f"/v1/games/{game_id}/{path}", headers=bearer(host))
        assert "Content-Type" not in answer.request.headers
        assert answer.status_code in (200, 201), answer.get_json()
    assert client.get(f"/v1/games/{game_id}", headers=key).get_json()["status"] == "cancelled"
    playing = client.post("/v1/games", json=GAME).get_json()
    left = client.post(f"/v1/games/{playing['game']['game_id']}/leave",
                       headers=bearer(playing["tokens"]["1"]))
    assert left.status_code == 200, left.get_json()
    hook = client.post("/v1/webhooks", headers=key, json={
        "url": "http://127.0.0.1:9/hook", "event_types": ["round.ended"]}).get_json()
    rotated = client.post(f"/v1/webhooks/{hook['webhook']['id']}/rotate-secret", headers=key)
    assert rotated.status_code == 200, rotated.get_json()
    assert rotated.get_json()["secret"] != hook["secret"]
