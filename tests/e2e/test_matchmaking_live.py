"""Matchmaking on the real system (docs/ratings.md#matchmaking): two API processes, two
Celery workers and beat, on PostgreSQL and Redis. 200 tickets of mixed tables, opened at
once on both API processes, all end seated — with people, or with AI once their wait is
over — and no ticket, and no seat, twice."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from stack import BACKENDS, Stack, make_backend
from test_webhooks_delivered import _key

TICKETS = 200
TABLES = [("classic", 3), ("classic", 4), ("cardverse", 4), ("classic", 5)]


@pytest.mark.skipif("redis" not in BACKENDS, reason="needs PostgreSQL and Redis: set "
                    "PRESIDENT_TEST_DATABASE_URL and PRESIDENT_TEST_REDIS_URL (.ci/run does)")
def test_two_hundred_tickets_on_two_api_processes_all_seated_once(tmp_path: Path) -> None:
    # One key follows sixteen tickets at once, each long poll holding one of its stream
    # slots: more than a client's default (8 an API worker), as an integrator would set.
    stack = Stack(make_backend("redis", tmp_path), tmp_path,
                  settings={"PRESIDENT_STREAMS_PER_CLIENT": "32"})
    try:
        stack.start_ai_worker()
        stack.start_celery_worker()
        stack.start_celery_worker()
        stack.start_beat()
        stack.start_api()
        stack.start_api()
        key = _key(stack)

        def open_ticket(n: int) -> Any:
            preset, players = TABLES[n % len(TABLES)]
            reply = requests.post(f"{stack.api_urls[n % 2]}/v1/matchmaking/tickets",
                                  headers=key, timeout=30, json={
                                      "player_id": f"p{n}", "preset": preset,
                                      "players": players, "wait_s": 5, "fill": "easy"})
            assert reply.status_code == 201, reply.text
            return reply.json()

        def follow(ticket: dict[str, Any]) -> Any:
            ends = time.monotonic() + 90
            while time.monotonic() < ends:
                reply = requests.get(
                    f"{stack.api_urls[hash(ticket['id']) % 2]}/v1/matchmaking/tickets/"
                    f"{ticket['id']}", params={"wait": 10}, headers=key, timeout=30)
                assert reply.status_code == 200, reply.text
                if reply.json()["state"] != "waiting":
                    return reply.json()
            raise AssertionError(f"ticket {ticket['id']} never seated\n{stack.logs()}")

        with ThreadPoolExecutor(16) as pool:
            tickets = list(pool.map(open_ticket, range(TICKETS)))
            seated = list(pool.map(follow, tickets))
        assert {s["state"] for s in seated} == {"matched"}
        assert all(s["token"] for s in seated)  # each shown its seat's token once
        seats = Counter((s["game_id"], s["seat"]) for s in seated)
        assert len(seats) == TICKETS and max(seats.values()) == 1
        by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for s in seated:
            by_game[s["game_id"]].append(s)
        filled = 0
        for game_id, mates in by_game.items():
            assert len({(s["preset"], s["players"]) for s in mates}) == 1  # one kind a table
            game = requests.get(f"{stack.api_urls[0]}/v1/games/{game_id}", headers=key,
                                timeout=10).json()
            kinds = Counter(seat["kind"] for seat in game["seats"])
            assert kinds["human"] == len(mates) and len(game["seats"]) == mates[0]["players"]
            filled += kinds["ai"]
        assert filled < TICKETS  # most seats went to people
    finally:
        stack.close()
