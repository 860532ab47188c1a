"""The export over HTTP, on SQLite and PostgreSQL: a key's finished series as ndjson,
each replaying to the stored state; none under way, none of another key."""

from __future__ import annotations

import json
from typing import Any, Iterator
from urllib.parse import quote

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app
from engine import Rules, cards_of, deal, parse_action, replay
from services.store import Store
from test_http import assert_problem
from test_tables import create, key, play_out

SEATS = [{"kind": "human", "player_id": "ann"}, {"kind": "ai", "engine": "easy"},
         {"kind": "ai", "engine": "normal"}]


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    with inline_app(db).test_client() as c:
        yield c


def _exported(client: FlaskClient, headers: dict[str, str], query: str = "") -> list[Any]:
    response = client.get(f"/v1/games/export{query}", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/x-ndjson"
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def test_finished_series_export_and_replay_to_what_is_stored(client: FlaskClient,
                                                            db: Engine) -> None:
    owner, other = key(db), key(db)
    finished = []
    for rounds in (1, 2):
        created = create(client, SEATS, owner, rounds=rounds)
        play_out(client, created["game"]["game_id"], [created["tokens"]["0"]])
        finished.append(created["game"]["game_id"])
    create(client, SEATS, owner)  # under way: never exported
    mine = create(client, SEATS, other, rounds=1)
    play_out(client, mine["game"]["game_id"], [mine["tokens"]["0"]])
    lines = _exported(client, owner)
    assert [line["game_id"] for line in lines] == finished
    store = Store(db)
    for line in lines:
        stored = store.reads.get(line["game_id"])
        assert stored is not None
        rules = Rules.from_dict(line["rules"])
        actions = [parse_action(a["action"]) for r in line["rounds"] for a in r["actions"]]
        assert replay(rules, line["seed"], actions) == stored.state
        assert len(line["rounds"]) == len(stored.state.results)
        for r in line["rounds"]:
            dealt = [c for hand in r["deal"] for c in hand]
            assert len(dealt) == len(set(dealt)) == 52 + rules.jokers  # the whole deck
            assert r["deal"] == _hands(rules, line["seed"], r["round"])
            assert r["points"] == list(stored.state.results[r["round"] - 1].points)
        assert line["seats"][0]["player_id"] == "ann" and line["outcome"] is not None
    since = quote(lines[1]["finished_at"])  # ("+00:00": a "+" in a query string is a space)
    assert [x["game_id"] for x in _exported(client, owner, f"?since={since}")] == finished[1:]
    assert [x["game_id"] for x in _exported(client, other)] == [mine["game"]["game_id"]]


def _hands(rules: Rules, seed: int, round_no: int) -> list[list[str]]:
    return [[str(c) for c in cards_of(hand)] for hand in deal(rules, seed, round_no)]


def test_an_export_needs_a_key_and_a_readable_since(client: FlaskClient, db: Engine) -> None:
    assert_problem(client.get("/v1/games/export"), 401, "key_required")
    assert_problem(client.get("/v1/games/export?since=yesterday", headers=key(db)), 400,
                   "invalid_query")
    assert _exported(client, key(db)) == []
