"""Clients playing games over HTTP against a cluster, the way a careful app does, and
what they saw: every move acknowledged, every wait for a game to move on, every
request's latency. ``bench chaos`` and ``bench soak`` drive their clusters with them.

A client plays seat 0 of 1 human + 3 AI games, one after the other, until told to stop
(it finishes the game under way). It sends each action with an Idempotency-Key, so an
action retried after a connection broke is answered with its first result, and it
retries any request that fails for want of a server (a refused connection, a timeout, a
5xx) on the next API process, for as long as ``patience_s``.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import requests

SEATS = [{"kind": "human"}] + [{"kind": "ai", "engine": e} for e in ("easy", "normal", "easy")]
RETRY_PAUSE_S = 0.2


@dataclass(frozen=True)
class Acked:
    """An action the service answered 200 to: at ``version`` it made the game."""

    game_id: str
    version: int
    action: str
    at: float


@dataclass(frozen=True)
class Wait:
    """A game between two moves, as a client saw it (monotonic times)."""

    game_id: str
    start: float
    end: float


@dataclass
class Ledger:
    """What every client saw, shared (appends are atomic under the GIL)."""

    acked: list[Acked] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    games: dict[str, tuple[float, float | None]] = field(default_factory=dict)  # start, end
    latencies: list[tuple[float, float]] = field(default_factory=list)  # (when, seconds)
    statuses: list[tuple[float, int]] = field(default_factory=list)  # (when, status)
    failures: list[str] = field(default_factory=list)  # clients that gave up, and why


class Unserved(RuntimeError):
    """No API process answered a request for as long as the client would wait."""


class Player:
    def __init__(self, urls: list[str], seed: int, ledger: Ledger, stop: threading.Event,
                 patience_s: float = 120.0) -> None:
        self.urls = urls  # shared with the harness, which replaces processes it kills
        self.rng = random.Random(seed)
        self.ledger, self.stop, self.patience_s = ledger, stop, patience_s
        self.http = requests.Session()
        self.turn = seed  # which API process to ask first

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.play_a_game()
        except Exception as error:  # noqa: BLE001 - the harness reports it
            self.ledger.failures.append(f"{type(error).__name__}: {error}")

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        deadline = time.monotonic() + self.patience_s
        while True:
            url = self.urls[self.turn % len(self.urls)]
            started = time.monotonic()
            try:
                reply = self.http.request(method, f"{url}{path}", timeout=30, **kwargs)
            except requests.RequestException:  # refused, timed out, cut off mid-answer
                reply = None
            now = time.monotonic()
            self.ledger.latencies.append((now, now - started))
            if reply is not None:
                self.ledger.statuses.append((now, reply.status_code))
                if reply.status_code < 500:
                    return reply
            if now > deadline:
                raise Unserved(f"{method} {path}: no answer for {self.patience_s} s")
            self.turn += 1  # another process, after a pause
            time.sleep(RETRY_PAUSE_S)

    def play_a_game(self) -> str:
        created = self.call("POST", "/v1/games", json={"preset": "classic", "seats": SEATS,
                                                      "rounds": 1}).json()
        game_id: str = created["game"]["game_id"]
        auth = {"Authorization": f"Bearer {created['tokens']['0']}"}
        moved_at, version, seen = time.monotonic(), 0, 0
        self.ledger.games[game_id] = (moved_at, None)
        while True:
            game = self.call("GET", f"/v1/games/{game_id}", headers=auth).json()
            if game["version"] > version:
                moved_at = self._moved(game_id, moved_at)
                version = game["version"]
            if game["status"] == "over":
                self.ledger.games[game_id] = (self.ledger.games[game_id][0], time.monotonic())
                return game_id
            view = game["view"]
            if view["to_act"] == view["seat"]:
                action = self.rng.choice(view["legal_actions"])
                reply = self.call("POST", f"/v1/games/{game_id}/actions", headers={
                    **auth, "Idempotency-Key": f"{game_id}-{version}"},
                    json={"action": action, "version": version})
                if reply.status_code == 200:
                    version = reply.json()["version"]
                    self.ledger.acked.append(Acked(game_id, version, action, time.monotonic()))
                    moved_at = self._moved(game_id, moved_at)
            else:
                seen = self.call("GET", f"/v1/games/{game_id}/events", headers=auth,
                                 params={"after": seen, "wait": 5}).json()["last"]

    def _moved(self, game_id: str, since: float) -> float:
        now = time.monotonic()
        self.ledger.waits.append(Wait(game_id, since, now))
        return now


def start_players(urls: list[str], count: int, ledger: Ledger,
                  stop: threading.Event) -> list[threading.Thread]:
    players = [Player(urls, seed, ledger, stop) for seed in range(count)]
    threads = [threading.Thread(target=p.run, name=f"player-{n}", daemon=True)
               for n, p in enumerate(players)]
    for thread in threads:
        thread.start()
    return threads


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def rss_mb(pid: int) -> float:
    """A process's resident memory, from /proc (Linux)."""
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0
