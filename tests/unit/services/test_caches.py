"""What a process keeps between requests is bounded by bytes, not only by entries: a
finished long series weighs hundreds of times a new game."""

from __future__ import annotations

import random

from engine import Rules, apply, legal_actions, new_series
from services.store.states import GameStates, Known, weight
from services.versioned import VersionedCache


def test_a_cache_by_bytes_pushes_out_the_least_recently_used_until_it_fits() -> None:
    cache: VersionedCache[str, bytes] = VersionedCache(100, max_bytes=1000, weigh=len)
    for name in "abcd":
        cache.put(name, b"x" * 300)
    assert cache.bytes == 900 and len(cache) == 3 and cache.get("a") is None
    cache.get("b")  # b is now the most recently used
    cache.put("e", b"x" * 300)
    assert cache.get("c") is None and cache.get("b") is not None
    cache.put("b", b"x" * 10)  # a lighter value for the same key
    assert cache.bytes == 610
    cache.put("huge", b"x" * 5000)  # heavier than the whole budget: not kept
    assert cache.get("huge") is None and cache.bytes <= 1000
    cache.clear()
    assert cache.bytes == 0 and len(cache) == 0


def _finished(rounds: int, seed: int = 1) -> Known:
    rules = Rules.preset("classic", players=4, rounds=rounds)
    state, rng, version = new_series(rules, seed), random.Random(seed), 0
    while state.to_act >= 0:
        state, _ = apply(state, rng.choice(list(legal_actions(state))))
        version += 1
    return Known(version, 0, state)


def test_the_states_held_stay_within_their_bytes() -> None:
    new = Known(0, 0, new_series(Rules.preset("classic", players=4), 1))
    long_series = _finished(30)
    assert weight(long_series) > 100 * weight(new)
    states = GameStates(max_bytes=3 * weight(long_series))
    for n in range(10):
        states.remember(f"game-{n}", long_series)
    assert states.bytes <= 3 * weight(long_series)
    assert states.state("game-9") is not None and states.state("game-0") is None
