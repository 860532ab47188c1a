"""``Stack``: the whole system as real processes (``benchmarks.cluster.Cluster``),
plus what a test asks of it through the API and the database."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import requests

from databases import PG_URL, REDIS_URL, fresh, pg_url

from engine import parse_action
from benchmarks.cluster import Backend, Cluster
from sqlalchemy import select

import bootstrap
from services.handlers.audit import rebuilt_state
from services.store import Store
from services.store.models import ActionRow
from services.store.db import make_engine

__all__ = ["BACKENDS", "Backend", "Stack", "make_backend"]

BACKENDS = ["embedded"] + (["redis"] if PG_URL and REDIS_URL else [])


def _redis_url() -> str:
    """A Redis database of its own per xdist worker, emptied first."""
    assert REDIS_URL is not None
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    url = f"{REDIS_URL.rstrip('/')}/{1 + int(worker.removeprefix('gw') or 0) % 15}"
    redis.Redis.from_url(url).flushdb()
    return url


def make_backend(name: str, tmp_path: Path) -> Backend:
    if name == "embedded":
        database = f"sqlite:///{tmp_path}/president.db"
        backend = Backend(name, database, f"sqla+sqlite:///{tmp_path}/broker.db")
    else:
        backend = Backend(name, pg_url(), _redis_url())
    fresh(make_engine(backend.database_url)).dispose()
    return backend


@dataclass
class Stack(Cluster):
    """The cluster, and what a test asks of it through the API and the database."""

    def store(self) -> Store:
        return bootstrap.open_store(self.backend.database_url)

    def log(self, store: Store, game_id: str) -> list[tuple[int, int, str]]:
        """(seq, seat, action) of the game's stored action log, in order."""
        with store.engine.connect() as connection:
            return [tuple(row) for row in connection.execute(  # type: ignore[misc]
                select(ActionRow.seq, ActionRow.seat, ActionRow.action)
                .where(ActionRow.game_id == game_id).order_by(ActionRow.seq))]

    def game(self, game_id: str, token: str | None = None, url: str | None = None) -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        reply = requests.get(f"{url or self.api_urls[0]}/v1/games/{game_id}",
                             headers=headers, timeout=10)
        assert reply.status_code == 200, reply.text
        return reply.json()

    def wait_over(self, game_id: str, timeout_s: float = 120) -> Any:
        deadline = time.monotonic() + timeout_s
        while True:
            game = self.game(game_id)
            if game["status"] == "over":
                return game
            if time.monotonic() > deadline:
                raise AssertionError(f"game {game_id} stuck at version {game['version']}\n"
                                     f"{self.logs()}")
            time.sleep(0.2)

    def wait_version(self, game_id: str, at_least: int, timeout_s: float = 60) -> Any:
        deadline = time.monotonic() + timeout_s
        while (game := self.game(game_id))["version"] < at_least:
            if time.monotonic() > deadline:
                raise AssertionError(f"game {game_id} stuck at version {game['version']}\n"
                                     f"{self.logs()}")
            time.sleep(0.05)
        return game

    def events(self, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        found: list[dict[str, Any]] = []
        while True:
            reply = requests.get(f"{self.api_urls[0]}/v1/games/{game_id}/events",
                                 params={"after": len(found)}, headers=headers, timeout=10)
            batch = reply.json()["events"]
            if not batch:
                return found
            found += batch

    def assert_sound(self, game_id: str) -> None:
        """Every action applied exactly once: the log is numbered 1..N with no gap, and
        seed + log replay to the stored state, whose version is N."""
        store = self.store()
        try:
            log = [(seq, action) for seq, _, action in self.log(store, game_id)]
            stored = store.reads.get(game_id)
            assert stored is not None
            assert [seq for seq, _ in log] == list(range(1, len(log) + 1))
            assert stored.version == len(log)
            snapshot, rebuilt = rebuilt_state(game_id, store.uow())
            assert snapshot == rebuilt
            assert [str(parse_action(text)) for _, text in log] == \
                [str(a) for a in rebuilt.actions()]
        finally:
            store.close()
