"""Ratings on the real system (docs/ratings.md): PostgreSQL, Celery on Redis, two Celery
workers, the rater sent by every relay and, on top, many times over by hand at once:
every round of every rated series is rated exactly once, in the order it ended."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from sqlalchemy import func, select

from services.store.models import RatedRoundRow, RatingHistoryRow, RatingQueueRow
from stack import BACKENDS, Stack, make_backend
from test_webhooks_delivered import _key, _until
from workers.turns.app import RATINGS_QUEUE, make_celery
from workers.turns.settings import TurnSettings

GAMES = 6
SEATS = [{"kind": "human", "player_id": "p"}, {"kind": "ai", "engine": "easy"},
         {"kind": "ai", "engine": "normal"}, {"kind": "ai", "engine": "easy"}]


@pytest.mark.skipif("redis" not in BACKENDS, reason="needs PostgreSQL and Redis: set "
                    "PRESIDENT_TEST_DATABASE_URL and PRESIDENT_TEST_REDIS_URL (.ci/run does)")
def test_every_round_is_rated_once_whatever_the_deliveries(tmp_path: Path) -> None:
    stack = Stack(make_backend("redis", tmp_path), tmp_path)
    try:
        stack.start_ai_worker()
        stack.start_celery_worker()
        stack.start_celery_worker()
        stack.start_api()
        url, key = stack.api_urls[0], _key(stack)
        games = []
        for n in range(GAMES):  # the person leaves at once: its AI plays its rounds
            made = requests.post(f"{url}/v1/games", headers=key, timeout=10, json={
                "preset": "classic", "rounds": 2, "seats": [
                    {**SEATS[0], "player_id": f"p{n}"}, *SEATS[1:]], "takeover": "easy"})
            assert made.status_code == 201, made.text
            game_id, token = made.json()["game"]["game_id"], made.json()["tokens"]["0"]
            left = requests.post(f"{url}/v1/games/{game_id}/leave", timeout=10,
                                 headers={"Authorization": f"Bearer {token}"})
            assert left.status_code == 200, left.text
            games.append(game_id)
        sender = make_celery(TurnSettings.from_env(broker_url=stack.backend.broker_url))

        def duplicate(_: int) -> None:  # deliveries on top of the relays' own
            sender.send_task("president.rate_rounds", queue=RATINGS_QUEUE)

        deadline = time.monotonic() + 180
        while not all(_over(stack, g, key) for g in games):
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(duplicate, range(8)))
            assert time.monotonic() < deadline, stack.logs()
            time.sleep(0.2)
        _until(lambda: _count(stack, RatingQueueRow) == 0
               and _count(stack, RatedRoundRow) == 2 * GAMES, 60, stack)
        store = stack.store()
        try:
            with store.engine.connect() as c:
                history = c.execute(select(RatingHistoryRow.player, RatingHistoryRow.game_id,
                                           RatingHistoryRow.round)
                                    .order_by(RatingHistoryRow.id)).all()
        finally:
            store.close()
        # each round once, each of its three players (ai:easy holds two seats) once
        assert len(history) == len(set(history)) == 2 * GAMES * 3
        for game_id in games:  # in the order the rounds ended
            rounds = [r for _, g, r in history if g == game_id]
            assert rounds == sorted(rounds)
        easy = requests.get(f"{url}/v1/players/ai:easy", headers=key, timeout=10).json()
        assert easy["pools"][0]["rounds"] == 2 * GAMES
    finally:
        stack.close()


def _over(stack: Stack, game_id: str, key: dict[str, str]) -> bool:
    reply = requests.get(f"{stack.api_urls[0]}/v1/games/{game_id}", headers=key, timeout=10)
    return bool(reply.json()["status"] == "over")


def _count(stack: Stack, row: type) -> int:
    store = stack.store()
    try:
        with store.engine.connect() as c:
            return int(c.scalar(select(func.count()).select_from(row)) or 0)
    finally:
        store.close()
