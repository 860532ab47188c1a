"""What a process keeps between requests is bounded by bytes, not only by entries: a
finished long series weighs hundreds of times a new game."""

from __future__ import annotations

import random

from engine import Rules, apply, legal_actions, new_series
from services.domain import Seat
from services.store.feed import Notice
from services.store.states import GameStates, Known, Seating, weight
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


def test_a_seating_read_before_an_announced_seat_change_is_not_kept() -> None:
    """A read that began before another process changed the game's seats, and ended
    after the change feed announced it, must not leave the old seats held."""
    states = GameStates()
    old = Seating("classic", (Seat(0, "open"),), 0, None, None, None, seated=0)
    new = old._replace(seats=(Seat(0, "human", token_hash="h"),), seated=1)
    states.seat("g", old, seen_at=3)
    state = new_series(Rules.preset("classic"), 1)
    states.remember("g", Known(0, 5, state, 3))
    states.bring_up_to_date(Notice("g", 0, 0, 6, ()), 7)  # a seat change, announced
    assert states.seating("g") is None  # read again on the next request
    held = states.state("g")
    assert held is not None and held.events == 6  # with the events it added
    states.seat("g", old, seen_at=5)  # the late read: not kept
    assert states.seating("g") is None
    states.seat("g", new, seen_at=8)
    assert states.seating("g") == new
    states.seat("g", old, seen_at=9)  # fewer seat changes than held: not kept either
    assert states.seating("g") == new
