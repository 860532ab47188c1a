"""Tournaments between AI levels, with statistics that survive the luck of the deal.

Every deal is played once per rotation of the seating (duplicate style): with seats
``hard,normal,normal,normal`` and 4 players, each deal is played 4 times with the
Hard seat moved one place each time, so every level plays every hand from every
position. A deal is the unit of independence: a level's result for a deal is the
mean of its points over all the seats it held in all the rotations, and means and
95% intervals are taken over deals (normal approximation).
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

from engine import Rules, apply, new_series, observe
from engine.outcome import Role
from workers.ai.budget import Budget
from workers.ai.levels import LEVELS, decide

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Config:
    rules: Rules
    seats: tuple[str, ...]
    deals: int
    seed: int
    budgets: dict[str, Budget] = field(default_factory=dict)


@dataclass
class DealResult:
    points: dict[str, list[int]] = field(default_factory=dict)  # level -> points per seat held
    president: dict[str, int] = field(default_factory=dict)
    trou: dict[str, int] = field(default_factory=dict)
    times_ms: dict[str, list[float]] = field(default_factory=dict)


def rotations(seats: Sequence[str]) -> Iterator[tuple[str, ...]]:
    """Each distinct cyclic shift of the seating once."""
    seen: set[tuple[str, ...]] = set()
    for k in range(len(seats)):
        shifted = tuple(seats[k:]) + tuple(seats[:k])
        if shifted not in seen:
            seen.add(shifted)
            yield shifted


def play_deal(config: Config, deal: int) -> DealResult:
    """Play one deal in every rotation of the seating."""
    out = DealResult()
    deal_seed = config.seed * 1_000_003 + deal
    for rotation, seating in enumerate(rotations(config.seats)):
        state = new_series(config.rules, deal_seed)
        step = 0
        while not state.is_over:
            seat = state.to_act
            level = seating[seat]
            started = time.perf_counter()
            action = decide(observe(state, seat), level,
                            seed=hash((deal_seed, rotation, step)) & 0xFFFFFFFF,
                            budget=config.budgets.get(level))
            out.times_ms.setdefault(level, []).append((time.perf_counter() - started) * 1000)
            state, _ = apply(state, action, seat)
            step += 1
        result = state.results[-1]
        for seat, level in enumerate(seating):
            out.points.setdefault(level, []).append(result.points[seat])
            out.president[level] = out.president.get(level, 0) + (result.roles[seat] is Role.PRESIDENT)
            out.trou[level] = out.trou.get(level, 0) + (result.roles[seat] is Role.TROU)
    return out


def _play_deal_job(args: tuple[Config, int]) -> DealResult:
    return play_deal(*args)


def run(config: Config, processes: int | None = None,
        progress: Callable[[int, int, float], None] | None = None) -> dict[str, Any]:
    """Play the tournament on ``processes`` cores and summarise it."""
    for level in config.seats:
        if level not in LEVELS:
            raise ValueError(f"unknown AI level {level!r}; known: {', '.join(LEVELS)}")
    if len(config.seats) != config.rules.players:
        raise ValueError(f"{len(config.seats)} seats for a {config.rules.players}-player ruleset")
    processes = processes or os.cpu_count() or 1
    started = time.perf_counter()
    results: list[DealResult] = []
    jobs = [(config, d) for d in range(config.deals)]
    if processes == 1:
        iterator: Iterator[DealResult] = map(_play_deal_job, jobs)
        for result in iterator:
            results.append(result)
            if progress:
                progress(len(results), config.deals, time.perf_counter() - started)
    else:
        with ProcessPoolExecutor(processes) as pool:
            for result in pool.map(_play_deal_job, jobs, chunksize=1):
                results.append(result)
                if progress:
                    progress(len(results), config.deals, time.perf_counter() - started)
    return summarise(config, results)


def _mean_ci(values: Sequence[float]) -> tuple[float, list[float] | None]:
    """The mean and its 95% interval; no interval from a single deal (JSON null)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, [round(mean - half, 4), round(mean + half, 4)]


def _interval(ci: list[float] | None, sign: str = "") -> str:
    return "[n/a]" if ci is None else f"[{ci[0]:{sign}.3f}, {ci[1]:{sign}.3f}]"


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index]


def summarise(config: Config, results: Sequence[DealResult]) -> dict[str, Any]:
    levels = list(dict.fromkeys(config.seats))
    per_deal = {lv: [statistics.fmean(r.points[lv]) for r in results] for lv in levels}
    rounds = sum(len(r.points[levels[0]]) for r in results) // config.seats.count(levels[0])
    summary: dict[str, Any] = {"rounds": rounds, "deals": len(results),
                               "seats": list(config.seats), "levels": {}, "gaps": {}}
    for lv in levels:
        held = sum(len(r.points[lv]) for r in results)
        mean, ci = _mean_ci(per_deal[lv])
        times = [t for r in results for t in r.times_ms.get(lv, [])]
        summary["levels"][lv] = {
            "mean_points": round(mean, 4), "ci95": ci,
            "president_rate": round(sum(r.president[lv] for r in results) / held, 4),
            "trou_rate": round(sum(r.trou[lv] for r in results) / held, 4),
            "decision_ms_p50": round(_percentile(times, 0.50), 3),
            "decision_ms_p95": round(_percentile(times, 0.95), 3),
            "decisions": len(times),
        }
    for i, a in enumerate(levels):
        for b in levels[i + 1:]:
            diffs = [x - y for x, y in zip(per_deal[a], per_deal[b])]
            mean, ci = _mean_ci(diffs)
            summary["gaps"][f"{a}-{b}"] = {"mean": round(mean, 4), "ci95": ci}
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    lines = [f"{summary['rounds']} rounds ({summary['deals']} deals x rotations), seats "
             f"{','.join(summary['seats'])}",
             f"{'level':<8} {'points':>7} {'95% CI':>17} {'Président':>10} {'Trou':>7} "
             f"{'p50 ms':>8} {'p95 ms':>8}"]
    for lv, s in summary["levels"].items():
        lines.append(f"{lv:<8} {s['mean_points']:>7.3f} {_interval(s['ci95']):>17} "
                     f"{s['president_rate']:>10.1%} {s['trou_rate']:>7.1%} "
                     f"{s['decision_ms_p50']:>8.2f} {s['decision_ms_p95']:>8.2f}")
    for name, g in summary["gaps"].items():
        lines.append(f"gap {name}: {g['mean']:+.3f} points/round, "
                     f"95% CI {_interval(g['ci95'], '+')}")
    return "\n".join(lines)


def print_progress(done: int, total: int, elapsed: float) -> None:
    if done == total or done % max(1, total // 50) == 0:
        eta = elapsed / done * (total - done)
        print(f"\r  {done}/{total} deals, {elapsed:.0f}s elapsed, ~{eta:.0f}s left",
              end="" if done < total else "\n", file=sys.stderr, flush=True)
