"""Webhooks over HTTP, on SQLite and PostgreSQL, delivered to a real receiver (an HTTP
server in the test): registration and its refusals, signatures checked with
``standardwebhooks``, the event types and their content, retries with the same
webhook-id, 410 disabling an endpoint, and a receiver that never answers."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, select
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from apps import HookedApp, hooked_app
from receiver import Receiver, Received
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.store import Store
from services.store.models import WebhookEndpointRow

AIS = [{"kind": "ai", "engine": "easy"}] * 4
EVERY_TYPE = ["seat.turn", "seat.timed_out", "round.ended", "series.ended"]


@pytest.fixture
def hooked(db: Engine) -> HookedApp:
    return hooked_app(db)


@pytest.fixture
def client(hooked: HookedApp) -> Iterator[FlaskClient]:
    with hooked.app.test_client() as c:
        yield c


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def _key(db: Engine, scopes: tuple[str, ...] = ("games:create-human", "games:create-ai",
                                                 "games:read", "webhooks")) -> dict[str, str]:
    _, secret = create_key(CreateKey("test app", scopes), Store(db).uow())
    return {"X-API-Key": secret}


def _register(client: FlaskClient, key: dict[str, str], url: str,
              types: list[str] = EVERY_TYPE) -> dict[str, Any]:
    made = client.post("/v1/webhooks", json={"url": url, "event_types": types}, headers=key)
    assert made.status_code == 201, made.get_json()
    return made.get_json()  # type: ignore[no-any-return]


def _ai_series(client: FlaskClient, key: dict[str, str], rounds: int = 2) -> str:
    made = client.post("/v1/games", json={"preset": "classic", "seats": AIS, "rounds": rounds,
                                          "seed": 7}, headers=key)
    assert made.status_code == 201, made.get_json()
    game_id: str = made.get_json()["game"]["game_id"]
    return game_id


def _types(received: list[Received]) -> list[str]:
    return [r.headers["webhook-id"] and r.body.split('"type":"')[1].split('"')[0]
            for r in received]


def test_a_series_calls_its_owner_s_endpoint_signed_once_per_event_in_order(
        client: FlaskClient, db: Engine, hooked: HookedApp, receiver: Receiver) -> None:
    key = _key(db)
    registered = _register(client, key, receiver.url)
    secret = registered["secret"]
    assert secret.startswith("whsec_")
    game_id = _ai_series(client, key, rounds=2)
    _ai_series(client, _key(db), rounds=1)  # another key's series: not for this endpoint
    got = receiver.wait_for(lambda seen: len(seen) >= 3, pump=hooked.pump)
    hooked.courier.join()
    hooked.pump()
    hooked.courier.join()
    payloads = sorted((r.verified(secret) for r in receiver.received),
                      key=lambda p: (p["data"]["version"], p["data"]["seq"]))
    assert [p["type"] for p in payloads] == ["round.ended", "round.ended", "series.ended"]
    assert {p["data"]["game_id"] for p in payloads} == {game_id}
    assert [p["data"]["result"]["round"] for p in payloads[:2]] == [1, 2]
    assert "outcome" in payloads[2]["data"] and payloads[2]["data"]["seq"] > 0
    assert len({r.webhook_id for r in got}) == len(receiver.received) == 3
    for r in receiver.received:  # every header the specification asks for
        assert r.headers["webhook-id"].startswith("msg_")
        assert r.headers["Content-Type"] == "application/json"
        with pytest.raises(WebhookVerificationError):  # another secret does not verify
            Webhook("whsec_" + "A" * 43 + "=").verify(r.body, r.headers)


def test_a_human_s_turn_says_its_seat_and_deadline_by_the_database_s_clock(
        client: FlaskClient, db: Engine, hooked: HookedApp, receiver: Receiver) -> None:
    key = _key(db)
    secret = _register(client, key, receiver.url, ["seat.turn"])["secret"]
    made = client.post("/v1/games", json={
        "preset": "classic", "seats": [{"kind": "human"}] + AIS[:3],
        "turn_timeout_ms": 60_000}, headers=key).get_json()
    got = receiver.wait_for(lambda seen: len(seen) >= 1, pump=hooked.pump)
    turn = got[0].verified(secret)
    assert turn["type"] == "seat.turn"
    assert turn["data"]["game_id"] == made["game"]["game_id"]
    assert turn["data"]["seat"] == 0 and turn["data"]["time_limit_ms"] == 60_000
    now = client.get(f"/v1/games/{made['game']['game_id']}", headers=key).get_json()
    assert turn["data"]["version"] == now["version"]  # (the AI seats before it have played)
    deadline = datetime.fromisoformat(turn["data"]["deadline"])
    assert (deadline - datetime.fromisoformat(turn["timestamp"])).total_seconds() == 60


def test_a_failed_attempt_is_tried_again_with_the_same_webhook_id_and_listed(
        client: FlaskClient, db: Engine, hooked: HookedApp) -> None:
    receiver = Receiver(answers=[500, 503])
    try:
        key = _key(db)
        registered = _register(client, key, receiver.url, ["series.ended"])
        _ai_series(client, key, rounds=1)
        got = receiver.wait_for(lambda seen: len(seen) >= 3, pump=hooked.pump)
        hooked.courier.join()
    finally:
        receiver.close()
    assert len({r.webhook_id for r in got}) == 1  # one message, three attempts
    assert [r.body for r in got] == [got[0].body] * 3  # the same body, signed each time
    listed = client.get(f"/v1/webhooks/{registered['webhook']['id']}/deliveries?limit=2",
                        headers=key).get_json()
    assert [d["status_code"] for d in listed["deliveries"]] == [200, 503]
    assert listed["deliveries"][0]["message_state"] == "delivered"
    rest = client.get(f"/v1/webhooks/{registered['webhook']['id']}/deliveries?limit=2&cursor="
                      f"{listed['next_cursor']}", headers=key).get_json()
    assert [d["status_code"] for d in rest["deliveries"]] == [500]
    assert rest["next_cursor"] is None
    assert all(d["latency_ms"] >= 0 for d in listed["deliveries"] + rest["deliveries"])
    endpoint = client.get(f"/v1/webhooks/{registered['webhook']['id']}", headers=key).get_json()
    assert endpoint["enabled"] and endpoint["failing_since"] is None  # it works again


def test_410_gone_disables_the_endpoint_until_the_key_enables_it_again(
        client: FlaskClient, db: Engine, hooked: HookedApp) -> None:
    receiver = Receiver(answers=[410])
    try:
        key = _key(db)
        endpoint_id = _register(client, key, receiver.url, ["series.ended"])["webhook"]["id"]
        _ai_series(client, key, rounds=1)
        receiver.wait_for(lambda seen: len(seen) >= 1, pump=hooked.pump)
        hooked.courier.join()
        endpoint = client.get(f"/v1/webhooks/{endpoint_id}", headers=key).get_json()
        assert not endpoint["enabled"] and "410" in endpoint["disabled_reason"]
        _ai_series(client, key, rounds=1)  # nothing is written for a disabled endpoint
        hooked.pump()
        hooked.courier.join()
        assert len(receiver.received) == 1
        enabled = client.patch(f"/v1/webhooks/{endpoint_id}", json={"enabled": True},
                               headers=key).get_json()
        assert enabled["enabled"] and enabled["disabled_reason"] is None
        _ai_series(client, key, rounds=1)
        receiver.wait_for(lambda seen: len(seen) >= 2, pump=hooked.pump)
    finally:
        receiver.close()


def test_a_receiver_that_never_answers_delays_no_game(
        client: FlaskClient, db: Engine, hooked: HookedApp) -> None:
    receiver = Receiver(hold=threading.Event())
    try:
        key = _key(db)
        _register(client, key, receiver.url, ["round.ended", "series.ended"])
        game_id = _ai_series(client, key, rounds=3)  # every round played inline, here
        receiver.wait_for(lambda seen: len(seen) >= 1, pump=hooked.pump)
        assert client.get(f"/v1/games/{game_id}", headers=key).get_json()["status"] == "over"
        assert receiver.holding >= 1  # the series ended with its webhooks still unanswered
    finally:
        receiver.close()


def test_a_redirect_is_not_followed(client: FlaskClient, db: Engine,
                                    hooked: HookedApp, receiver: Receiver) -> None:
    elsewhere = Receiver(answers=[302], headers={"Location": receiver.url})
    try:
        key = _key(db)
        endpoint_id = _register(client, key, elsewhere.url, ["series.ended"])["webhook"]["id"]
        _ai_series(client, key, rounds=1)
        elsewhere.wait_for(lambda seen: len(seen) >= 1, pump=hooked.pump)
        hooked.courier.join()
        assert receiver.received == []
        listed = client.get(f"/v1/webhooks/{endpoint_id}/deliveries", headers=key).get_json()
        assert listed["deliveries"][0]["status_code"] == 302
        assert listed["deliveries"][0]["message_state"] == "pending"  # tried again later
    finally:
        elsewhere.close()


def test_the_secret_is_shown_once_stored_encrypted_and_rotated(
        client: FlaskClient, db: Engine, hooked: HookedApp, receiver: Receiver) -> None:
    key = _key(db)
    registered = _register(client, key, receiver.url, ["series.ended"])
    endpoint_id, first = registered["webhook"]["id"], registered["secret"]
    for shown in (client.get("/v1/webhooks", headers=key).get_json(),
                  client.get(f"/v1/webhooks/{endpoint_id}", headers=key).get_json()):
        assert first not in str(shown) and "secret" not in str(shown)
    with db.connect() as c:
        stored = c.execute(select(WebhookEndpointRow.secret)).scalar_one()
    assert first not in stored and first.removeprefix("whsec_") not in stored
    rotated = client.post(f"/v1/webhooks/{endpoint_id}/rotate-secret", headers=key).get_json()
    second = rotated["secret"]
    assert second != first and second.startswith("whsec_")
    _ai_series(client, key, rounds=1)
    got = receiver.wait_for(lambda seen: len(seen) >= 1, pump=hooked.pump)
    assert got[0].verified(second)["type"] == "series.ended"
    with pytest.raises(WebhookVerificationError):
        got[0].verified(first)


@pytest.mark.parametrize("body, code", [
    ({"url": "ftp://example.com/x", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://user:pw@example.com/x", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://example.com/" + "x" * 2100, "event_types": ["round.ended"]},
     "invalid_body"),
    ({"url": "http://127.0.0.1:9/x", "event_types": ["game.moved"]}, "invalid_body"),
    ({"url": "http://127.0.0.1:9/x", "event_types": []}, "invalid_body"),
    ({"url": "http://127.0.0.1:9/x"}, "invalid_body"),
    ({"url": "http://no-such-host.invalid/x", "event_types": ["round.ended"]}, "url_refused"),
    ({"url": "http://10.0.0.1/x", "event_types": ["round.ended"]}, "url_refused"),
    ({"url": "http://169.254.169.254/latest", "event_types": ["round.ended"]}, "url_refused"),
    ({"url": "http://[::1", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://127.0.0.1:99999/x", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://:@127.0.0.1:9/x", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://127.0.0.1:9/\r\nX: y", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://127.0.0.1:9/\u0000", "event_types": ["round.ended"]}, "bad_webhook"),
    ({"url": "http://127.0.0.1:9/x", "event_types": ["round.ended"], "description": "a\u0000"},
     "bad_webhook"),
])
def test_a_bad_registration_is_refused_and_changes_nothing(
        client: FlaskClient, db: Engine, body: dict[str, Any], code: str) -> None:
    key = _key(db)
    refused = client.post("/v1/webhooks", json=body, headers=key)
    assert refused.status_code == 400, refused.get_json()
    assert refused.mimetype == "application/problem+json"
    assert refused.get_json()["code"] == code
    assert client.get("/v1/webhooks", headers=key).get_json()["webhooks"] == []


@pytest.mark.parametrize("change", [{"url": "http://[::1"}, {"url": "http://127.0.0.1:9/ x"},
                                    {"description": "\u0000"}])
def test_a_bad_change_is_refused_and_changes_nothing(
        client: FlaskClient, db: Engine, receiver: Receiver, change: dict[str, str]) -> None:
    key = _key(db)
    endpoint = _register(client, key, receiver.url)["webhook"]
    refused = client.patch(f"/v1/webhooks/{endpoint['id']}", json=change, headers=key)
    assert refused.status_code == 400 and refused.get_json()["code"] == "bad_webhook"
    assert client.get(f"/v1/webhooks/{endpoint['id']}", headers=key).get_json() == endpoint


def test_a_field_left_out_or_null_stays_and_an_empty_description_clears(
        client: FlaskClient, db: Engine, receiver: Receiver) -> None:
    key = _key(db)
    made = client.post("/v1/webhooks", headers=key, json={
        "url": receiver.url, "event_types": ["round.ended"], "description": "mine"})
    url = f"/v1/webhooks/{made.get_json()['webhook']['id']}"
    kept = client.patch(url, headers=key, json={"description": None, "enabled": True})
    assert kept.get_json()["description"] == "mine"
    assert kept.get_json()["event_types"] == ["round.ended"]
    assert client.patch(url, headers=key, json={"description": ""}).get_json()[
        "description"] == ""


def test_registrations_at_once_stay_within_the_key_s_bound(
        client: FlaskClient, db: Engine, receiver: Receiver) -> None:
    """Eight registrations at the same moment, a bound of three (tests/apps.py): three
    made, the others refused (on SQLite, a writer that lost the race may be told to try
    again instead), never more than three held."""
    key, app = _key(db), client.application
    start = threading.Barrier(8)

    def register() -> int:
        with app.test_client() as mine:
            start.wait()
            return mine.post("/v1/webhooks", json={"url": receiver.url,
                                                   "event_types": ["round.ended"]},
                             headers=key).status_code

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: register(), range(8)))
    assert answers.count(201) == 3 and set(answers) <= {201, 409, 503}, answers
    assert len(client.get("/v1/webhooks", headers=key).get_json()["webhooks"]) == 3


@pytest.mark.parametrize("path, status, code", [
    ("/v1/webhooks/zzz", 404, "webhook_not_found"),  # (shorter than an id: none such)
    ("/v1/webhooks/zzz/deliveries", 404, "webhook_not_found"),
    ("/v1/webhooks/" + "z" * 33, 404, "not_found"),  # (longer than the route takes)
    ("/v1/webhooks/{id}/deliveries?cursor=abc", 400, "bad_cursor"),
    ("/v1/webhooks/{id}/deliveries?cursor=-1", 400, "bad_cursor"),
    ("/v1/webhooks/{id}/deliveries?cursor=" + "9" * 19, 400, "bad_cursor"),
    ("/v1/webhooks/{id}/deliveries?limit=0", 400, "invalid_query"),
])
def test_an_id_or_a_cursor_the_service_did_not_issue_is_refused_by_its_code(
        client: FlaskClient, db: Engine, receiver: Receiver, path: str, status: int,
        code: str) -> None:
    key = _key(db)
    endpoint_id = _register(client, key, receiver.url)["webhook"]["id"]
    answer = client.get(path.replace("{id}", endpoint_id), headers=key)
    assert (answer.status_code, answer.get_json()["code"]) == (status, code)
    assert answer.mimetype == "application/problem+json"


def test_endpoints_are_a_key_s_own_bounded_and_need_the_scope(
        client: FlaskClient, db: Engine, receiver: Receiver) -> None:
    mine, theirs = _key(db), _key(db)
    endpoint_id = _register(client, mine, receiver.url)["webhook"]["id"]
    for method in ("get", "patch", "delete"):
        other = getattr(client, method)(f"/v1/webhooks/{endpoint_id}", json={}, headers=theirs)
        assert other.status_code == 404 and other.get_json()["code"] == "webhook_not_found"
    assert client.get("/v1/webhooks", headers=theirs).get_json()["webhooks"] == []
    for _ in range(2):  # the tests' policy: three a key
        _register(client, mine, receiver.url)
    over = client.post("/v1/webhooks", json={"url": receiver.url, "event_types": EVERY_TYPE},
                       headers=mine)
    assert over.status_code == 409 and over.get_json()["code"] == "too_many_webhooks"
    assert len(client.get("/v1/webhooks", headers=mine).get_json()["webhooks"]) == 3
    unscoped = _key(db, ("games:read",))
    refused = client.get("/v1/webhooks", headers=unscoped)
    assert refused.status_code == 403 and refused.get_json()["code"] == "missing_scope"
    anonymous = client.get("/v1/webhooks")
    assert anonymous.status_code == 401 and anonymous.get_json()["code"] == "key_required"
    assert client.delete(f"/v1/webhooks/{endpoint_id}", headers=mine).status_code == 204
    gone = client.delete(f"/v1/webhooks/{endpoint_id}", headers=mine)
    assert gone.status_code == 404
