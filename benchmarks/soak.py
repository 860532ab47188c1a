"""``president bench soak``: the chaos benchmark's cluster under steady load, no fault,
for ``minutes`` after a warm-up: the resident memory of every process of the cluster (of
every slot, for the AI worker's) at the end of the warm-up and at the end (its growth in
%), and the p99 latency of the clients' requests, minute by minute (the last minute's
against the first's)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.chaos import Chaos
from benchmarks.load import percentile, rss_mb
from benchmarks.servers import cpu_s, processes


def _memory(chaos: Chaos) -> dict[str, float]:
    """Resident MB by process: ``name/pid``, and ``name/ai-worker-<slot>`` for the AI
    worker's server processes, which are replaced after their calls (the slot is what
    lasts; one draining, on its way out, is left aside)."""
    sizes = {}
    for proc in chaos.cluster.procs:
        if proc.popen.poll() is None:
            for pid in processes(group=proc.popen.pid):
                try:
                    name = Path(f"/proc/{pid}/comm").read_text().strip()
                    if name != "ai-draining":
                        slot = name if name.startswith("ai-worker-") else str(pid)
                        sizes[f"{proc.name}/{slot}"] = rss_mb(pid)
                except OSError:
                    pass  # (gone meanwhile)
    return sizes


def _cpu(chaos: Chaos) -> dict[str, float]:
    """CPU seconds so far by kind of process: api, celery, grpc, beat, and the servers."""
    used = {"postgres": chaos.postgres.cpu_s(), "redis": chaos.redis.cpu_s()}
    for proc in chaos.cluster.procs:
        if proc.popen.poll() is None:
            kind = proc.name.split("-")[0]
            group = processes(group=proc.popen.pid)
            used[kind] = used.get(kind, 0.0) + cpu_s(proc.popen.pid, group)
    return used


def _moves(chaos: Chaos) -> int:
    from sqlalchemy import create_engine, func, select

    from services.store.models import ActionRow

    engine = create_engine(chaos.postgres.url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as connection:
        count = connection.scalar(select(func.count()).select_from(ActionRow))
    engine.dispose()
    return int(count or 0)


def bench_soak(minutes: float = 10.0, clients: int = 40, warm_up_s: float = 60.0,
               cache_mb: int | None = None) -> dict[str, Any]:
    """``cache_mb``: the processes' cache budget (``PRESIDENT_CACHE_MB``; default the
    service's): one small enough to fill during the warm-up tells a leak from the caches
    filling up to their bound."""
    workdir = Path(tempfile.mkdtemp(prefix="president-soak-"))
    chaos = Chaos(workdir, clients,
                  None if cache_mb is None else {"PRESIDENT_CACHE_MB": str(cache_mb)})
    try:
        time.sleep(warm_up_s)
        started, before = time.monotonic(), _memory(chaos)
        cpu_before, moves_before = _cpu(chaos), _moves(chaos)
        time.sleep(minutes * 60)
        after = _memory(chaos)
        cpu_after, moves = _cpu(chaos), _moves(chaos) - moves_before
        ended = time.monotonic()
        ledger = chaos.ledger
        chaos.finish()
    finally:
        chaos.close()
        shutil.rmtree(workdir, ignore_errors=True)
    growth = {name: round(100 * (after[name] - mb) / mb, 1)
              for name, mb in before.items() if name in after and mb}
    per_minute = []
    for minute in range(max(1, int(minutes))):
        low, high = started + 60 * minute, min(ended, started + 60 * (minute + 1))
        latencies = [s for at, s in ledger.latencies if low <= at < high]
        per_minute.append(round(percentile(latencies, 0.99) * 1000, 1))
    return {"minutes": minutes, "clients": clients, "warm_up_s": warm_up_s,
            "cache_mb": cache_mb,
            "rss_mb_after_warm_up": {k: round(v, 1) for k, v in before.items()},
            "rss_mb_at_end": {k: round(v, 1) for k, v in after.items()},
            "rss_growth_pct": growth,
            "rss_growth_pct_max": max(growth.values(), default=0.0),
            "p99_ms_per_minute": per_minute,
            "p99_last_vs_first_pct": round(100 * (per_minute[-1] - per_minute[0])
                                           / per_minute[0], 1) if per_minute[0] else None,
            "moves": moves, "moves_per_s": round(moves / (ended - started), 1),
            # what a move costs each kind of process (AI moves included: 3 of 4 here)
            "cpu_ms_per_move": {kind: round(1000 * (cpu_after[kind] - used) / moves, 3)
                                for kind, used in cpu_before.items()
                                if kind in cpu_after and moves},
            "requests": len(ledger.latencies), "games": len(ledger.games),
            "client_failures": ledger.failures}


def format_soak(report: dict[str, Any]) -> str:
    lines = [f"{report['minutes']} min, {report['clients']} clients, {report['games']} games,"
             f" {report['requests']} requests, {report['moves_per_s']} moves/s",
             f"CPU ms per move: {report['cpu_ms_per_move']}",
             f"p99 per minute (ms): {report['p99_ms_per_minute']} "
             f"(last vs first: {report['p99_last_vs_first_pct']} %)",
             f"{'process':<28}{'MB after warm-up':>18}{'MB at end':>11}{'growth %':>10}"]
    for name, growth in report["rss_growth_pct"].items():
        lines.append(f"{name:<28}{report['rss_mb_after_warm_up'][name]:>18}"
                     f"{report['rss_mb_at_end'][name]:>11}{growth:>10}")
    return "\n".join(lines)
