"""``president bench chaos``: one fault at a time on a cluster under load, and what each
cost the games (``tests/chaos`` runs the same and checks it).

The cluster: 2 API processes, 2 Celery workers, a 2-process gRPC AI worker and beat, on
a PostgreSQL and a Redis of its own (``benchmarks.servers``: restarting the machine's
would hurt everything else on it), with the settings of ``CHAOS_SETTINGS``. Clients
(``benchmarks.load``) play 1 human + 3 AI games throughout. The faults, in order, each
given ``settle_s`` to be over before the next:

- ``api_kill``, ``celery_kill``, ``grpc_kill``: SIGKILL to one such process (its whole
  group), and a new one started at once, as a supervisor would;
- ``postgres_restart``, ``redis_restart``: the server stopped and started again (every
  session dropped; Redis keeps nothing, so every queued message is lost);
- ``postgres_unreachable``, ``redis_unreachable``: every process of the server stopped
  (SIGSTOP) for ``unreachable_s``: connections that neither answer nor close.

Then the clients finish their games, and every game is checked against its log:

- ``acked_lost``: actions answered 200 that are not in the log where they were played;
- ``applied_twice``: games whose log is not numbered 1..N without a gap, or does not
  replay from the seed to the stored state (an action applied twice would do either);
- ``unfinished``: games not over once the clients have stopped;
- ``max_stall_s``: the longest a game waited for its next move once the fault was over
  (from when it cleared, or when the wait began if later, to the end of the fault's
  window at most: the next fault answers for the rest), among the waits it overlapped.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from benchmarks.cluster import Backend, Cluster, Proc
from benchmarks.load import Ledger, Wait, percentile, start_players
from benchmarks.servers import PrivatePostgres, PrivateRedis

FAULTS = ("api_kill", "celery_kill", "grpc_kill", "postgres_restart", "redis_restart",
          "postgres_unreachable", "redis_unreachable")

# A lost message costs a turn PRESIDENT_TURN_EXPIRES_S + the AI deadline + 0.5 s + a sweep
# period at most (docs/pipeline.md): the levels these games seat answer in milliseconds,
# so a 1.5 s deadline is ample, and keeps that bound at 5 s.
# As deployed, four turns at once per worker (deploy/ runs prefork, 4); threads here, as
# light on this one machine's memory, and a turn mostly waits on gRPC and the database.
CELERY_WORKER = ("--pool", "prefork", "--concurrency", "3")
CHAOS_SETTINGS = {"PRESIDENT_AI_DEADLINE_MS": "1500", "PRESIDENT_TURN_EXPIRES_S": "2",
                  "PRESIDENT_SWEEP_EVERY_S": "1", "PRESIDENT_AI_RETRY_BASE_MS": "100"}


@dataclass
class Window:
    fault: str
    start: float
    cleared: float
    end: float = 0.0


def stall(wait: Wait, window: Window) -> float:
    """How long ``wait`` held a game once ``window``'s fault had cleared, to the window's
    end at most: what comes after is the next fault's to answer for (a wait that the next
    fault, a 10 s freeze, prolongs)."""
    return min(wait.end, window.end) - max(wait.start, window.cleared)


class Chaos:
    """The servers, the cluster and the clients: ``inject`` one fault at a time."""

    def __init__(self, workdir: Path, clients: int,
                 settings: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.postgres = PrivatePostgres()
        self.redis = PrivateRedis(workdir)
        from services.store.db import make_engine, upgrade

        engine = make_engine(self.postgres.url)
        upgrade(engine)
        engine.dispose()
        self.cluster = Cluster(Backend("chaos", self.postgres.url, self.redis.url),
                               workdir, settings={**CHAOS_SETTINGS, **(settings or {})})
        self.cluster.start_ai_worker(processes=2)
        for _ in range(2):
            self.cluster.start_celery_worker(*CELERY_WORKER)
        self.cluster.start_beat()
        self.urls: list[str] = []
        for _ in range(2):
            self._start_api()
        self.ledger, self.stop = Ledger(), threading.Event()
        self.players = start_players(self.urls, clients, self.ledger, self.stop)
        self.restarted: list[str] = []  # processes found dead, and started again

    def _start_api(self) -> None:
        self.cluster.start_api(workers=1)
        self.urls.append(self.cluster.api_urls[-1])

    def _live(self, prefix: str) -> Proc:
        return next(p for p in self.cluster.procs
                    if p.name.startswith(prefix) and p.popen.poll() is None)

    def inject(self, fault: str, unreachable_s: float) -> Window:
        start = time.monotonic()
        INJECT[fault](self, unreachable_s)
        return Window(fault, start, time.monotonic())

    def kill_api(self, _: float) -> None:
        proc = self._live("api-")
        port = proc.name.removeprefix("api-")
        proc.kill(signal.SIGKILL)
        self.urls[:] = [u for u in self.urls if not u.endswith(f":{port}")]
        self._start_api()

    def kill_celery(self, _: float) -> None:
        self._live("celery-").kill(signal.SIGKILL)
        self.cluster.start_celery_worker(*CELERY_WORKER)

    def kill_grpc(self, _: float) -> None:
        self._live("grpc-").kill(signal.SIGKILL)
        self.cluster.start_ai_worker(processes=2)

    def revive(self) -> None:
        """Start again any worker that died by itself (a supervisor's job; counted)."""
        for proc in list(self.cluster.procs):
            code = proc.popen.poll()
            if code is not None and code != -signal.SIGKILL and proc.name.startswith("celery-"):
                self.restarted.append(f"{proc.name} (exit code {code})")
                self.cluster.procs.remove(proc)
                self.cluster.start_celery_worker(*CELERY_WORKER)

    def finish(self, timeout_s: float = 180) -> None:
        self.stop.set()
        deadline = time.monotonic() + timeout_s
        for thread in self.players:
            thread.join(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        self.stop.set()
        self.cluster.close()
        self.redis.close()
        self.postgres.close()


def _frozen(server: Callable[[Chaos], Any]) -> Callable[[Chaos, float], None]:
    def freeze(chaos: Chaos, seconds: float) -> None:
        with server(chaos).frozen():
            time.sleep(seconds)
    return freeze


INJECT: dict[str, Callable[[Chaos, float], None]] = {
    "api_kill": Chaos.kill_api,
    "celery_kill": Chaos.kill_celery,
    "grpc_kill": Chaos.kill_grpc,
    "postgres_restart": lambda chaos, _: chaos.postgres.restart(),
    "redis_restart": lambda chaos, _: chaos.redis.restart(),
    "postgres_unreachable": _frozen(lambda chaos: chaos.postgres),
    "redis_unreachable": _frozen(lambda chaos: chaos.redis),
}


def run_chaos(workdir: Path, clients: int = 40, faults: tuple[str, ...] = FAULTS,
              warm_s: float = 5.0, settle_s: float = 10.0, unreachable_s: float = 10.0
              ) -> dict[str, Any]:
    chaos = Chaos(workdir, clients)
    try:
        time.sleep(warm_s)
        windows = []
        for fault in faults:
            window = chaos.inject(fault, unreachable_s)
            time.sleep(settle_s)
            chaos.revive()
            window.end = time.monotonic()
            windows.append(window)
        chaos.finish()
        return _report(chaos, windows, clients)
    finally:
        chaos.close()


def _report(chaos: Chaos, windows: list[Window], clients: int) -> dict[str, Any]:
    from services.store import Store
    from services.store.db import make_engine

    store = Store(make_engine(chaos.postgres.url), listen_url="off")
    try:
        logs = {game_id: _log(store, game_id) for game_id in chaos.ledger.games}
        games_now = {game_id: store.reads.get(game_id) for game_id in logs}
        unsound = {game_id for game_id, log in logs.items()
                   if not _sound(store, games_now[game_id], log)}
        over = {game_id for game_id, game in games_now.items()
                if game is not None and game.status == "over"}
    finally:
        store.close()
    ledger = chaos.ledger
    faults = {}
    for window in windows:
        acked = [a for a in ledger.acked if window.start <= a.at < window.end]
        games = {g for g, (start, end) in ledger.games.items()
                 if start < window.end and (end is None or end >= window.start)}
        stalls = [stall(w, window) for w in ledger.waits
                  if w.end > window.start and w.start < window.end]
        faults[window.fault] = {
            "acked_lost": sum(1 for a in acked if dict(logs[a.game_id]).get(a.version)
                              != a.action),
            "applied_twice": len(games & unsound),
            "unfinished": len(games - over),
            "max_stall_s": round(max(stalls, default=0.0), 2),
            "fault_s": round(window.cleared - window.start, 2),
            "games": len(games), "moves_acked": len(acked),
            "answers_5xx": sum(1 for at, status in ledger.statuses
                               if window.start <= at < window.end and status >= 500),
        }
    waits = [w.end - w.start for w in ledger.waits]
    return {"faults": faults, "clients": clients, "games": len(logs),
            "unfinished": len(set(logs) - over), "client_failures": ledger.failures,
            "restarted_by_the_harness": chaos.restarted,
            "wait_p50_s": round(percentile(waits, 0.5), 3),
            "wait_p99_s": round(percentile(waits, 0.99), 3), "settings": CHAOS_SETTINGS}


def _log(store: Any, game_id: str) -> list[tuple[int, str]]:
    from sqlalchemy import select

    from services.store.models import ActionRow

    with store.engine.connect() as connection:
        return [(seq, action) for seq, action in connection.execute(
            select(ActionRow.seq, ActionRow.action).where(ActionRow.game_id == game_id)
            .order_by(ActionRow.seq))]


def _sound(store: Any, game: Any, log: list[tuple[int, str]]) -> bool:
    """Numbered 1..N without a gap, at the stored version, replaying to the stored state."""
    from services.handlers.audit import rebuilt_state

    if game is None or [seq for seq, _ in log] != list(range(1, len(log) + 1)):
        return False
    snapshot, rebuilt = rebuilt_state(game.id, store.uow())
    return bool(game.version == len(log) and snapshot == rebuilt)


def bench_chaos(clients: int = 40, settle_s: float = 10.0,
                faults: tuple[str, ...] = FAULTS) -> dict[str, Any]:
    with ExitStack() as stack:
        workdir = Path(tempfile.mkdtemp(prefix="president-chaos-"))
        stack.callback(shutil.rmtree, workdir, ignore_errors=True)
        return run_chaos(workdir, clients, faults, settle_s=settle_s)


def format_chaos(report: dict[str, Any]) -> str:
    lines = [f"{'fault':<22}{'lost':>6}{'twice':>7}{'unfin.':>8}{'max stall s':>13}"
             f"{'moves':>8}{'5xx':>6}"]
    for fault, r in report["faults"].items():
        lines.append(f"{fault:<22}{r['acked_lost']:>6}{r['applied_twice']:>7}"
                     f"{r['unfinished']:>8}{r['max_stall_s']:>13}{r['moves_acked']:>8}"
                     f"{r['answers_5xx']:>6}")
    lines.append(f"{report['games']} games by {report['clients']} clients; waits p50 "
                 f"{report['wait_p50_s']} s, p99 {report['wait_p99_s']} s; client failures: "
                 f"{len(report['client_failures'])}; restarted: "
                 f"{report['restarted_by_the_harness'] or 'none'}")
    return "\n".join(lines)
