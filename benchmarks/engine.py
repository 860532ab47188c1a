"""``president bench engine``: random legal rounds per ruleset, one core, rounds/s and actions/s.

Each round is a fresh one-round series (deal included) played to its end by
choosing uniformly among the legal actions, the way an AI's simulations use
the engine: ``generate`` then ``apply_unchecked`` without events, on a state
the round owns (``owned``: changed in place, not copied at each action). The
actions come from the engine's own legal list, so checking them again would
measure nothing new. ``api_rounds_per_s`` is the same through the public path a
service uses per move: ``apply`` (which checks the action) with its events.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable

from engine import Rules, apply, apply_unchecked, legal_actions, new_series
from engine.game import generate

# The rulesets the issues name: the three presets, every trick option at once, UECda's.
RULESETS: dict[str, Rules] = {
    "classic": Rules.preset("classic", rounds=1),
    "cardverse": Rules.preset("cardverse"),
    "club": Rules.preset("club"),
    "full": Rules.preset("full", rounds=1),
    "uecda": Rules.preset("uecda", rounds=1),
}


def play_random_round(rules: Rules, seed: int, rng: random.Random) -> int:
    """Play one round with uniformly random legal actions; return how many were applied."""
    state = new_series(rules, seed)
    actions = 0
    while state.to_act >= 0:
        legal = generate(state)
        state = apply_unchecked(state, legal[int(rng.random() * len(legal))], None, True)
        actions += 1
    return actions


def play_random_round_checked(rules: Rules, seed: int, rng: random.Random) -> int:
    """The same through ``legal_actions`` and the checking ``apply``, events included."""
    state = new_series(rules, seed)
    actions = 0
    while state.to_act >= 0:
        legal = legal_actions(state).as_list()
        state, _ = apply(state, legal[int(rng.random() * len(legal))])
        actions += 1
    return actions


def play_rounds(preset: str, count: int, seed: int) -> int:
    """``count`` random rounds of ``preset``, the benchmark's own: the same actions on
    every run (the count of instructions they take is what callgrind measures)."""
    rules = Rules.preset(preset, rounds=1)
    rng = random.Random(seed)
    return sum(play_random_round(rules, i, rng) for i in range(count))


PlayRound = Callable[[Rules, int, random.Random], int]


def _timed(play: PlayRound, rules: Rules, seconds: float, seed: int) -> tuple[int, int, float]:
    rng = random.Random(seed)
    warm_until = time.process_time() + min(0.5, seconds / 4)
    while time.process_time() < warm_until:  # untimed: let caches and the CPU clock settle
        play(rules, -seed, rng)
    rounds = actions = 0
    start = time.process_time()  # CPU time of this process: one core, whatever else runs
    elapsed = 0.0
    while elapsed < seconds:
        actions += play(rules, seed + rounds, rng)
        rounds += 1
        elapsed = time.process_time() - start
    return rounds, actions, elapsed


def bench_ruleset(rules: Rules, seconds: float, seed: int) -> dict[str, float]:
    rounds, actions, elapsed = _timed(play_random_round, rules, seconds, seed)
    api_rounds, api_actions, api_elapsed = _timed(play_random_round_checked, rules,
                                                  seconds / 2, seed)
    return {"rounds": rounds, "actions": actions, "seconds": round(elapsed, 3),
            "rounds_per_s": round(rounds / elapsed, 1),
            "actions_per_s": round(actions / elapsed, 1),
            "api_rounds_per_s": round(api_rounds / api_elapsed, 1),
            "api_actions_per_s": round(api_actions / api_elapsed, 1)}


def bench_engine(seconds: float = 3.0, seed: int = 1) -> dict[str, Any]:
    return {"rulesets": {name: bench_ruleset(rules, seconds, seed)
                         for name, rules in RULESETS.items()}}


def format_engine(report: dict[str, Any]) -> str:
    lines = [f"{'ruleset':<10} {'rounds/s':>10} {'actions/s':>11} {'actions/round':>14}"
             f" {'api rounds/s':>13} {'api actions/s':>14}"]
    for name, r in report["rulesets"].items():
        lines.append(f"{name:<10} {r['rounds_per_s']:>10,.0f} {r['actions_per_s']:>11,.0f} "
                     f"{r['actions'] / r['rounds']:>14.1f} {r['api_rounds_per_s']:>13,.0f}"
                     f" {r['api_actions_per_s']:>14,.0f}")
    return "\n".join(lines)
