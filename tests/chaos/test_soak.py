"""``president bench soak`` on its cluster for a short while, with a cache budget of its
own: every process's memory (the AI worker's by slot) sampled after the warm-up and at
the end, the latency per minute and the CPU per move reported."""

from __future__ import annotations

import shutil

import pytest

from benchmarks.servers import can_run_postgres
from benchmarks.soak import bench_soak


@pytest.mark.skipif(not can_run_postgres() or shutil.which("redis-server") is None,
                    reason="needs PostgreSQL's server programs (initdb, pg_ctl) and "
                    "redis-server: the soak runs servers of its own (.ci/run's machine "
                    "has them)")
def test_a_short_soak_reports_every_process_s_memory_latency_and_cpu() -> None:
    report = bench_soak(minutes=0.3, clients=6, warm_up_s=5.0, cache_mb=4)
    assert report["client_failures"] == [] and report["moves"] > 0
    assert report["cache_mb"] == 4
    before, after = report["rss_mb_after_warm_up"], report["rss_mb_at_end"]
    assert set(before) == set(after) == set(report["rss_growth_pct"])
    kinds = {name.split("/")[0].split("-")[0] for name in before}
    assert {"api", "celery", "grpc", "beat"} <= kinds, sorted(before)
    # the AI worker's server processes by slot (they are replaced after their calls)
    slots = {name.split("/")[1] for name in before if name.startswith("grpc")}
    assert {"ai-worker-0", "ai-worker-1"} <= slots, slots  # (and the parent, by pid)
    assert all(mb > 0 for mb in before.values())
    assert report["rss_growth_pct_max"] == max(report["rss_growth_pct"].values())
    assert len(report["p99_ms_per_minute"]) == 1 and report["p99_ms_per_minute"][0] > 0
    assert report["cpu_ms_per_move"] and all(ms >= 0 for ms in
                                             report["cpu_ms_per_move"].values())
