"""A migration applied to a running system under load (PostgreSQL): an expand step — a
nullable column on the hot ``games`` table, an index built ``CONCURRENTLY`` on
``actions`` — goes in while clients play through two API processes; no request fails,
``/readyz`` never leaves ready, every game finishes and replays, every acknowledged move
is in its log."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import requests
from alembic import command
from sqlalchemy import text

from benchmarks.load import Ledger, start_players
from services.store.db import alembic_config, make_engine
from stack import BACKENDS, Stack, make_backend

EXPAND = '''"""a test's expand step"""
import sqlalchemy as sa
from alembic import op

revision = "9012"
down_revision = "{head}"
branch_labels = None
depends_on = None
oldest_reader = "{head}"


def upgrade() -> None:
    op.add_column("games", sa.Column("test_note", sa.Text(), nullable=True))
    with op.get_context().autocommit_block():
        op.create_index("ix_test_actions_round", "actions", ["round"],
                        postgresql_concurrently=True)


def downgrade() -> None:
    op.drop_index("ix_test_actions_round", "actions")
    op.drop_column("games", "test_note")
'''


@pytest.mark.skipif("redis" not in BACKENDS, reason="needs PostgreSQL and Redis: set "
                    "PRESIDENT_TEST_DATABASE_URL and PRESIDENT_TEST_REDIS_URL (.ci/run does)")
def test_an_expand_migration_under_load_fails_no_request_and_keeps_every_api_ready(
        tmp_path: Path) -> None:
    stack = Stack(make_backend("redis", tmp_path), tmp_path)
    engine = make_engine(stack.backend.database_url)
    stop, ledger, not_ready = threading.Event(), Ledger(), []
    try:
        stack.start_ai_worker()
        stack.start_celery_worker()
        stack.start_beat()
        for _ in range(2):
            stack.start_api()
        urls = list(stack.api_urls)

        def probe() -> None:
            while not stop.is_set():
                for url in urls:
                    reply = requests.get(f"{url}/readyz", timeout=10)
                    if reply.status_code != 200:
                        not_ready.append((url, reply.status_code, reply.text))
                time.sleep(0.05)

        prober = threading.Thread(target=probe)
        prober.start()
        players = start_players(urls, 10, ledger, stop)
        time.sleep(3)  # every client in a game
        with engine.connect() as connection:
            head = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        versions = tmp_path / "versions"
        versions.mkdir()
        (versions / "9012_test_expand.py").write_text(EXPAND.format(head=head))
        config = alembic_config(engine)
        config.set_main_option("version_locations", " ".join(
            [config.get_main_option("script_location") + "/versions", str(versions)]))
        moves_before = len(ledger.acked)
        command.upgrade(config, "head")
        time.sleep(3)  # and the games go on
        assert len(ledger.acked) > moves_before
        stop.set()
        for thread in [*players, prober]:
            thread.join(120)
        with engine.connect() as connection:
            assert connection.execute(text("SELECT version_num FROM alembic_version")
                                      ).scalar() == "9012"
            assert connection.execute(text(
                "SELECT indisvalid FROM pg_index WHERE indexrelid = "
                "'ix_test_actions_round'::regclass")).scalar() is True
        assert not_ready == []
        assert ledger.failures == []
        assert not [status for _, status in ledger.statuses if status >= 500]
        store = stack.store()
        try:
            for game_id in ledger.games:
                assert stack.game(game_id)["status"] == "over"
                stack.assert_sound(game_id)
                logged = dict((seq, action) for seq, _, action in stack.log(store, game_id))
                assert all(logged.get(a.version) == a.action for a in ledger.acked
                           if a.game_id == game_id)
        finally:
            store.close()
    finally:
        stop.set()
        stack.close()
        engine.dispose()
