"""The play page on the whole system as `make run` starts it: the API, a Celery worker on
the embedded broker and a gRPC AI worker as real processes. AI moves now arrive after the
page's own, through the event stream, and the page keeps up."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from playwright.sync_api import Page, expect

from benchmarks.cluster import Backend, Cluster
from services.store.db import make_engine, upgrade
from test_play_page import play_one_move, start_from_the_form


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """Overrides the in-process server: every AI turn goes through Celery and gRPC."""
    backend = Backend("embedded", f"sqlite:///{tmp_path}/president.db",
                      f"sqla+sqlite:///{tmp_path}/broker.db")
    engine = make_engine(backend.database_url)
    upgrade(engine)
    engine.dispose()
    cluster = Cluster(backend, tmp_path)
    try:
        cluster.start_ai_worker()
        cluster.start_celery_worker()
        cluster.start_api()
        yield cluster.api_urls[0]
    finally:
        cluster.close()


def play_until_the_round_ends(page: Page) -> int:
    """As in the in-process tests, except that the AI moves that end the round may still
    be on their way after the page's own: wait for whichever comes, my turn or the end."""
    mine = page.locator('[data-testid="turn"][data-mine="true"]')
    results = page.get_by_test_id("results")
    for moves in range(100):
        expect(mine.or_(results).first).to_be_visible(timeout=20_000)
        if results.is_visible():
            return moves
        play_one_move(page)
    raise AssertionError("the round did not end in 100 moves")


def test_a_round_against_ais_played_by_the_celery_pipeline(page: Page) -> None:
    start_from_the_form(page, levels=("easy", "normal", "easy"))
    assert play_until_the_round_ends(page) >= 3
    expect(page.get_by_test_id("turn")).to_have_text("Series over")
    expect(page.get_by_test_id("scoreboard").locator("tbody tr")).to_have_count(4)
