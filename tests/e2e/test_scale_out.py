"""Scale-out on one machine: 2 API processes, 2 Celery workers and a 2-process gRPC AI
worker on PostgreSQL + Redis, and 40 clients at once, each playing a game to its end."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import requests

from engine import Rules, apply, new_series, parse_action
from positions import assert_cards_conserved
from stack import BACKENDS, Stack, make_backend

CLIENTS = 40
# A game ends well within this even when a turn's message expired before a worker took it
# (a loaded machine: the sweeper sends it again); past it the test fails, never hangs.
GAME_BOUND_S = 600
SEATS = [{"kind": "human"}] + [{"kind": "ai", "engine": e} for e in ("easy", "normal", "easy")]


class Client:
    """One player on one API process, remembering every status code it was answered."""

    def __init__(self, url: str, seed: int) -> None:
        self.url, self.rng, self.statuses = url, random.Random(seed), []
        self.http = requests.Session()

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        reply = self.http.request(method, f"{self.url}{path}", timeout=60, **kwargs)
        self.statuses.append(reply.status_code)
        return reply

    def play_a_game(self) -> str:
        created = self.call("POST", "/v1/games", json={"preset": "classic", "seats": SEATS,
                                                      "rounds": 1}).json()
        game_id, token = created["game"]["game_id"], created["tokens"]["0"]
        auth, seen = {"Authorization": f"Bearer {token}"}, 0
        deadline = time.monotonic() + GAME_BOUND_S
        while time.monotonic() < deadline:
            game = self.call("GET", f"/v1/games/{game_id}", headers=auth).json()
            if game["status"] == "over":
                return game_id
            view = game["view"]
            if view["to_act"] == view["seat"]:
                self.call("POST", f"/v1/games/{game_id}/actions", headers=auth,
                          json={"action": self.rng.choice(view["legal_actions"]),
                                "version": game["version"]})
            else:
                seen = self.call("GET", f"/v1/games/{game_id}/events", headers=auth,
                                 params={"after": seen, "wait": 10}).json()["last"]
        raise AssertionError(f"game {game_id} did not end")


@pytest.mark.skipif("redis" not in BACKENDS, reason="needs PostgreSQL and Redis: set "
                    "PRESIDENT_TEST_DATABASE_URL and PRESIDENT_TEST_REDIS_URL (.ci/run does)")
def test_forty_clients_at_once_on_two_of_everything(tmp_path: Path) -> None:
    stack = Stack(make_backend("redis", tmp_path), tmp_path)
    try:
        stack.start_ai_worker(processes=2)
        stack.start_celery_worker()
        stack.start_celery_worker()
        stack.start_api(workers=1)
        stack.start_api(workers=1)
        stack.start_beat()  # as deployed: its sweeper sends again a turn whose message expired
        clients = [Client(stack.api_urls[n % 2], seed=n) for n in range(CLIENTS)]
        with ThreadPoolExecutor(CLIENTS) as pool:
            game_ids = list(pool.map(Client.play_a_game, clients))
        statuses = [s for c in clients for s in c.statuses]
        assert not [s for s in statuses if s >= 500], stack.logs()
        assert len(set(game_ids)) == CLIENTS
        for game_id in game_ids:
            assert stack.game(game_id)["status"] == "over"
            stack.assert_sound(game_id)
            _replay_conserving_cards(stack, game_id)
    finally:
        stack.close()


def _replay_conserving_cards(stack: Stack, game_id: str) -> None:
    """Apply the stored log move by move, checking after each that every card is in
    exactly one place."""
    store = stack.store()
    try:
        game = store.reads.get(game_id)
        assert game is not None
        actions = [(seat, action) for _, seat, action in stack.log(store, game_id)]
        rules: Rules = game.state.rules
        state = new_series(rules, game.state.seed)
        for seat, text in actions:
            state, _ = apply(state, parse_action(text), seat)
            assert_cards_conserved(state)
        assert state == game.state
    finally:
        store.close()

