"""``president bench memory``: what an API worker holds after reading many finished long
series, against what its caches may hold (``PRESIDENT_CACHE_MB``).

One finished series is played by the engine (random legal actions) and stored, then
copied in the database under other ids, each a distinct game to the API; one gunicorn
worker reads every copy through HTTP, each a cold read (seats, snapshot, the whole
action log), and its resident memory is read before and after from ``/proc``."""

from __future__ import annotations

import http.client
import random
import tempfile
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, insert, make_url, select, text

from benchmarks.api import Shape, _stats, gunicorn
from engine import Rules, apply, legal_actions, new_series
from engine.state import State
from services.store.db import in_schema, make_engine, recreate
from services.store.models import ActionRow, GameRow, SeatRow
from services.store.snapshots import stored


def bench_memory(database_url: str | None = None, games: int = 2000, rounds: int = 100,
                 cache_mb: int = 64) -> dict[str, Any]:
    tmp = tempfile.mkdtemp(prefix="president-bench-")
    url = database_url or f"sqlite:///{tmp}/memory.db"
    if make_url(url).get_backend_name() == "postgresql":  # tables of its own, from scratch
        url = in_schema(url, "bench_memory")
    db = recreate(make_engine(url))
    try:
        template, actions = _store_one(db, rounds)
        ids = _copies(db, template, games)
    finally:
        db.dispose()
    env = {"DATABASE_URL": url, "PRESIDENT_RATE_STORAGE": "off",
           "PRESIDENT_CACHE_MB": str(cache_mb)}
    with gunicorn("bootstrap:api_app()", env, 4, Shape(1, "gevent", 1)) as server:
        worker = _worker_of(server.pid)
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        _read(conn, template)  # the code paths warm, and one game held
        before = _rss_mb(worker)
        for game_id in ids:
            _read(conn, game_id)
        after = _rss_mb(worker)
        conn.close()
    return {"database": make_url(url).get_backend_name(), "games": games, "rounds": rounds,
            "actions_per_game": actions, "cache_cap_mb": cache_mb,
            "rss_mb_before": round(before, 1), "rss_mb_after": round(after, 1),
            "growth_mb": round(round(after, 1) - round(before, 1), 1)}  # (as the figures say)


def _store_one(db: Engine, rounds: int) -> tuple[str, int]:
    """A finished series of ``rounds`` rounds, stored as the service stores one."""
    rules, rng = Rules.preset("classic", players=4, rounds=rounds), random.Random(1)
    state: State = new_series(rules, 1)
    log = []
    while state.to_act >= 0:
        action = rng.choice(list(legal_actions(state)))
        log.append((state.round_no, state.to_act, str(action)))
        state, _ = apply(state, action)
    game_id = uuid.uuid4().hex
    with db.begin() as c:
        c.execute(insert(GameRow).values(
            id=game_id, status="over", preset="classic", rules=rules.to_dict(), seed=1,
            version=len(log), snapshot=stored(state), events=0, pace_ms=0, to_act=-1))
        c.execute(insert(SeatRow), [{"game_id": game_id, "seat": s, "kind": "human",
                                     "token_hash": uuid.uuid4().hex * 2} for s in range(4)])
        c.execute(insert(ActionRow), [{"game_id": game_id, "seq": n, "round": r, "seat": seat,
                                       "action": a} for n, (r, seat, a) in enumerate(log, 1)])
    return game_id, len(log)


def _copies(db: Engine, template: str, games: int) -> list[str]:
    """``games`` copies of the template, each under an id of its own, made in the database."""
    ids = [uuid.uuid4().hex for _ in range(games)]
    columns = {table: [c.name for c in model.__table__.columns if c.name != "game_id"
                       and c.name != "id"] for table, model in
               (("games", GameRow), ("seats", SeatRow), ("actions", ActionRow))}
    with db.begin() as c:
        for game_id in ids:
            c.execute(text(f"INSERT INTO games (id, {', '.join(columns['games'])}) "
                           f"SELECT :new, {', '.join(columns['games'])} FROM games "
                           "WHERE id = :old"), {"new": game_id, "old": template})
            for table in ("seats", "actions"):
                names = ", ".join(columns[table])
                c.execute(text(f"INSERT INTO {table} (game_id, {names}) SELECT :new, {names} "
                               f"FROM {table} WHERE game_id = :old"),
                          {"new": game_id, "old": template})
        count = c.execute(select(GameRow.id).where(GameRow.status == "over")).all()
    assert len(count) == games + 1
    return ids


def _read(conn: http.client.HTTPConnection, game_id: str) -> None:
    conn.request("GET", f"/v1/games/{game_id}")
    response = conn.getresponse()
    response.read()
    if response.status != 200:
        raise RuntimeError(f"reading game {game_id}: {response.status}")


def _worker_of(master: int) -> int:
    (worker,) = [pid for pid, parent, _, _ in _stats() if parent == master]
    return worker


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def format_memory(r: dict[str, Any]) -> str:
    return (f"{r['games']} finished {r['rounds']}-round games ({r['actions_per_game']} actions "
            f"each) read through HTTP on {r['database']}: an API worker's resident memory "
            f"{r['rss_mb_before']} MB -> {r['rss_mb_after']} MB (+{r['growth_mb']} MB; "
            f"its caches may hold {r['cache_cap_mb']} MB)")
