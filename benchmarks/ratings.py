"""``president bench ratings``: leaderboards, ``around`` and the rater on a pool of
100,000 rated players, and the matcher, through the service layer, on PostgreSQL (a
schema of its own, made from scratch each run).

- Leaderboard: pages of 20 from random depths (a cursor at a random player), and
  ``around`` random players (3 on each side): p50 and p99 of each query.
- Rating updates: finished two-round series of four of those players, played by the
  engine with random legal actions and stored, their rounds queued; rounds rated a
  second by one rater, from the first to the last commit.
- Matchmaking: tickets of those players (three tables' kinds), seated a second once
  their wait is over (with people where ratings allow, else AI).
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import datetime, timedelta, timezone
from typing import Any

from cryptography.fernet import Fernet
from sqlalchemy import func, insert, select

from benchmarks.load import percentile
from engine import Rules, apply, legal_actions, new_series
from services.commands import CreateKey, OpenTicket, RatingPolicy
from services.domain import Caller, Game, Seat, Table
from services.handlers.keys import create_key
from services.handlers.leaderboards import board_cursor, leaderboard
from services.handlers.matchmaking import match, open_ticket
from services.handlers.ratings import rate_all
from services.store import Store
from services.store.db import in_schema, make_engine, recreate
from services.store.models import PlayerRow, RatingQueueRow, RatingRow, TicketRow
from services.store.secrets import FernetVault
from workers.ai import LEVELS

POOL = "classic-4"
POLICY = RatingPolicy(min_rounds=0)


def bench_ratings(database_url: str, players: int = 100_000, queries: int = 300,
                  series: int = 250, tickets: int = 2_000, seed: int = 1) -> dict[str, Any]:
    url = in_schema(database_url, "bench_ratings")
    engine = recreate(make_engine(url))
    store = Store(engine)
    rng = random.Random(seed)
    try:
        key, _ = create_key(CreateKey("bench", ("games:create-human", "games:create-ai",
                                                "games:read")), store.uow())
        caller = Caller(key)
        _seed_players(store, key.id, players, rng)
        board_ms, around_ms = _boards(store, caller, players, queries, rng)
        rounds, rate_s = _rate(store, key.id, players, series, rng)
        seated, match_s = _match(store, caller, tickets)
    finally:
        store.reads.engine.dispose()
        engine.dispose()
    return {"players": players,
            "leaderboard_p50_ms": statistics.median(board_ms),
            "leaderboard_p99_ms": percentile(board_ms, 0.99),
            "around_p50_ms": statistics.median(around_ms),
            "around_p99_ms": percentile(around_ms, 0.99),
            "rounds_rated": rounds, "rating_updates_per_s": rounds / rate_s,
            "tickets_seated": seated, "matchmaking_tickets_per_s": seated / match_s}


def _seed_players(store: Store, owner: str, players: int, rng: random.Random) -> None:
    now = datetime.now(timezone.utc)
    with store.engine.begin() as connection:
        for start in range(0, players, 5_000):
            chunk = range(start, min(players, start + 5_000))
            ratings = []
            for n in chunk:
                mu, sigma = rng.gauss(25, 6), rng.uniform(1, 8.3)
                ratings.append({"pool": POOL, "owner": owner, "player": f"p{n}", "mu": mu,
                                "sigma": sigma, "ordinal": mu - 3 * sigma,
                                "rounds": rng.randint(5, 200), "updated_at": now})
            connection.execute(insert(RatingRow), ratings)
            connection.execute(insert(PlayerRow), [
                {"owner": owner, "id": f"p{n}", "name": None, "created_at": now}
                for n in chunk])
    with store.engine.connect() as connection:  # (as autovacuum would: index-only scans)
        connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
            "VACUUM ANALYZE ratings")


def _boards(store: Store, caller: Caller, players: int, queries: int,
            rng: random.Random) -> tuple[list[float], list[float]]:
    board, around = [], []
    for _ in range(queries):
        player = f"p{rng.randrange(players)}"
        standings, _ = leaderboard(POOL, 1, None, player, store.uow(), caller, POLICY)
        me = next(s for s in standings if s.ref.player == player)
        started = time.perf_counter()  # a page from that player's depth
        cursor = board_cursor(me)
        leaderboard(POOL, 20, cursor, None, store.uow(), caller, POLICY)
        board.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        leaderboard(POOL, 3, None, player, store.uow(), caller, POLICY)
        around.append((time.perf_counter() - started) * 1000)
    return board, around


def _rate(store: Store, owner: str, players: int, series: int,
          rng: random.Random) -> tuple[int, float]:
    rules = Rules.preset("classic", players=4, rounds=2)
    queued = []
    for n in range(series):
        state = new_series(rules, rng.randrange(2**63))
        while not state.is_over:
            state, _ = apply(state, rng.choice(list(legal_actions(state))))
        seats = tuple(Seat(s, "human", player=f"p{rng.randrange(players)}", player_key=owner)
                      for s in range(4))
        game = Game(f"bench{n:027d}", "classic", seats, state, version=len(state.actions()),
                    owner=owner, table=Table("playing", "private"))
        with store.uow() as uow:
            uow.games.add(game, [])
            uow.commit()
        queued += [{"game_id": game.id, "round": r.round_no, "preset": "classic",
                    "players": [[owner, seat.player] for seat in seats],
                    "result": {"ranking": list(r.ranking), "points": list(r.points),
                               "roles": [role.value for role in r.roles]},
                    "created_at": datetime.now(timezone.utc)} for r in state.results]
    with store.engine.begin() as connection:
        connection.execute(insert(RatingQueueRow), queued)
    started = time.perf_counter()
    rounds = rate_all(store.uow, POLICY)
    return rounds, time.perf_counter() - started


def _match(store: Store, caller: Caller, tickets: int) -> tuple[int, float]:
    vault = FernetVault([Fernet.generate_key().decode()])
    kinds = [("classic", 3), ("classic", 4), ("classic", 5)]
    for n in range(tickets):
        preset, size = kinds[n % len(kinds)]
        open_ticket(OpenTicket(f"p{n}", preset, size, 600), store.uow(), caller, LEVELS,
                    POLICY)
    # As the wait runs out: every ticket is seated, with people where their ratings
    # allow (the windows wide open by then), else with AI.
    later = datetime.now(timezone.utc) + timedelta(seconds=600)
    started = time.perf_counter()
    while match(store.uow(), vault, now=later):
        pass
    elapsed = time.perf_counter() - started
    with store.engine.connect() as connection:
        seated = connection.scalar(select(func.count()).select_from(TicketRow)
                                   .where(TicketRow.state == "matched"))
    return int(seated or 0), elapsed


def format_ratings(report: dict[str, Any]) -> str:
    return "\n".join([
        f"{report['players']:,} rated players in one pool",
        f"leaderboard page: p50 {report['leaderboard_p50_ms']:.1f} ms, "
        f"p99 {report['leaderboard_p99_ms']:.1f} ms",
        f"around a player: p50 {report['around_p50_ms']:.1f} ms, "
        f"p99 {report['around_p99_ms']:.1f} ms",
        f"rater: {report['rating_updates_per_s']:.0f} rounds/s "
        f"({report['rounds_rated']} rounds)",
        f"matcher: {report['matchmaking_tickets_per_s']:.0f} tickets/s "
        f"({report['tickets_seated']} tickets)"])
