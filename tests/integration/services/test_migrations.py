"""Migrations on a database that already holds games: nothing under way is lost, and
what moves goes where it belongs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import Connection, Engine, text

from databases import PG_URL, pg_url
from engine import Rules, new_series
from engine.snapshot import state_to_dict
from services.store.db import alembic_config, make_engine, upgrade
from services.store.models import Base

BACKENDS = ["sqlite"] + (["postgresql"] if PG_URL else [])


@pytest.fixture(params=BACKENDS)
def empty(request: pytest.FixtureRequest, tmp_path: Path) -> Engine:
    url = f"sqlite:///{tmp_path}/old.db" if request.param == "sqlite" else pg_url()
    engine = make_engine(url)
    Base.metadata.drop_all(engine)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE IF EXISTS alembic_version"))
    return engine


def test_games_under_way_before_0004_know_whose_turn_it_is(empty: Engine) -> None:
    upgrade(empty, "0003")
    state = new_series(Rules.preset("classic", players=4), seed=11)
    assert state.to_act >= 0
    with empty.begin() as connection:
        connection.execute(text(
            "INSERT INTO games (id, status, preset, rules, seed, version, snapshot, events, "
            "created_at, updated_at) VALUES ('g1', 'active', 'classic', :rules, 11, 0, "
            ":snapshot, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"),
            {"rules": json.dumps(state.rules.to_dict()),
             "snapshot": json.dumps(state_to_dict(state))})
    upgrade(empty)
    with empty.connect() as connection:
        row = connection.execute(text(
            "SELECT to_act, pace_ms, turn_timeout_ms, turn_deadline FROM games")).one()
    assert tuple(row) == (state.to_act, 0, None, None)
    empty.dispose()


def _game(connection: Connection, game_id: str, owner: str | None) -> None:
    state = new_series(Rules.preset("classic", players=4), seed=11)
    connection.execute(text(
        "INSERT INTO games (id, status, preset, rules, seed, version, snapshot, events, "
        "created_at, updated_at, owner) VALUES (:id, 'over', 'classic', :rules, 11, 0, "
        ":snapshot, 0, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP, :owner)"),
        {"id": game_id, "owner": owner, "rules": json.dumps(state.rules.to_dict()),
         "snapshot": json.dumps(state_to_dict(state))})


def _rated(connection: Connection, owner: str, player: str, game_id: str,
           mu: float) -> None:
    connection.execute(text(
        "INSERT INTO rating_history (pool, owner, player, game_id, round, place, role, "
        "points, mu, sigma, ordinal, rated_at) VALUES ('classic-4', :owner, :player, "
        ":game, 1, 1, 'president', 2, :mu, 8.0, :ordinal, CURRENT_TIMESTAMP)"),
        {"owner": owner, "player": player, "game": game_id, "mu": mu, "ordinal": mu - 24})


def test_ai_ratings_before_0021_go_to_the_owners_of_the_games_they_came_from(
        empty: Engine) -> None:
    upgrade(empty, "0020")
    with empty.begin() as connection:
        for game_id, owner in (("g1", "k1"), ("g2", "k2"), ("g3", "k1"), ("g4", None)):
            _game(connection, game_id, owner)
        for game_id, mu in (("g1", 26.0), ("g2", 27.0), ("g3", 28.0), ("g4", 29.0),
                            ("gone", 30.0)):
            _rated(connection, "", "ai:hard", game_id, mu)
        _rated(connection, "k1", "ann", "g1", 24.0)
        connection.execute(text(
            "INSERT INTO ratings (pool, owner, player, mu, sigma, ordinal, rounds, "
            "updated_at) VALUES ('classic-4', '', 'ai:hard', 30.0, 8.0, 6.0, 5, "
            "CURRENT_TIMESTAMP), ('classic-4', 'k1', 'ann', 24.0, 8.0, 0.0, 1, "
            "CURRENT_TIMESTAMP)"))
        connection.execute(text(
            "INSERT INTO rating_queue (game_id, round, preset, players, result, created_at) "
            "VALUES ('g2', 2, 'classic', :players, '{}', CURRENT_TIMESTAMP)"),
            {"players": json.dumps([["k1", "ann"], ["", "ai:hard"], None])})
    upgrade(empty)
    with empty.connect() as connection:
        ratings = connection.execute(text(
            "SELECT owner, player, mu, rounds FROM ratings ORDER BY owner, player")).all()
        history = connection.execute(text(
            "SELECT owner, game_id FROM rating_history WHERE player = 'ai:hard' "
            "ORDER BY id")).all()
        queued = connection.execute(text("SELECT players FROM rating_queue")).scalar()
    # each key's view: its own games' rounds, the rating after its latest one
    assert [tuple(r) for r in ratings] == [("k1", "ai:hard", 28.0, 2), ("k1", "ann", 24.0, 1),
                                           ("k2", "ai:hard", 27.0, 1)]
    # a game of no owner's, or no longer stored: not derivable, dropped
    assert [tuple(h) for h in history] == [("k1", "g1"), ("k2", "g2"), ("k1", "g3")]
    assert (json.loads(queued) if isinstance(queued, str) else queued) == [
        ["k1", "ann"], ["k2", "ai:hard"], None]
    command.downgrade(alembic_config(empty), "0020")  # one global row again, derived
    with empty.connect() as connection:
        ratings = connection.execute(text(
            "SELECT owner, player, mu, rounds FROM ratings ORDER BY owner, player")).all()
        queued = connection.execute(text("SELECT players FROM rating_queue")).scalar()
    assert [tuple(r) for r in ratings] == [("", "ai:hard", 28.0, 3), ("k1", "ann", 24.0, 1)]
    assert (json.loads(queued) if isinstance(queued, str) else queued)[1] == ["", "ai:hard"]
    empty.dispose()
