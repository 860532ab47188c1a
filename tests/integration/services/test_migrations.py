"""Migrations on a database that already holds games: nothing under way is lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from databases import PG_URL, pg_url
from engine import Rules, new_series
from engine.snapshot import state_to_dict
from services.store.db import make_engine, upgrade
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
