"""A small LRU cache for per-game values that cannot go stale: each is fixed once and for
all (a seat's view rendered at a version) or says which version it is of (the newest
state a process has seen, a game's seating at its count of seat changes), so a hit never
passes for newer than it is, and old entries simply age out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class VersionedCache(Generic[K, V]):
    """Least recently used first out; safe to share between a process's threads. Bounded
    by a count of entries and, given ``weigh`` (an entry's bytes, estimated), by
    ``max_bytes``: a few large entries push out as many small ones as they must.

    A lookup takes no lock: each of its two steps is one call into the C ``OrderedDict``,
    which no other thread interrupts (the GIL), and the entry it found may only have been
    pushed out by another thread in between. Writes, which check and evict, take it."""

    def __init__(self, size: int, max_bytes: int | None = None,
                 weigh: Callable[[V], int] | None = None) -> None:
        self._size = size
        self._max_bytes = max_bytes if weigh is not None else None
        self._weigh = weigh
        self._items: OrderedDict[K, V] = OrderedDict()
        self._weights: dict[K, int] = {}
        self.bytes = 0  # the estimated bytes held
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            try:
                self._items.move_to_end(key)
            except KeyError:  # pushed out meanwhile: the value found is still right
                pass
        return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._store(key, value)

    def put_if(self, key: K, value: V, replaces: Callable[[V, V], bool]) -> None:
        """Put ``value`` unless an entry is there that ``replaces(old, value)`` says is
        better kept: checked and put under one lock, so two threads cannot undo each
        other."""
        with self._lock:
            old = self._items.get(key)
            if old is None or replaces(old, value):
                self._store(key, value)

    def pop_if(self, key: K, stale: Callable[[V], bool]) -> None:
        """Drop the entry if ``stale(value)`` (checked and dropped under one lock)."""
        with self._lock:
            old = self._items.get(key)
            if old is not None and stale(old):
                del self._items[key]
                self.bytes -= self._weights.pop(key, 0)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._weights.clear()
            self.bytes = 0

    def __len__(self) -> int:
        return len(self._items)

    def _store(self, key: K, value: V) -> None:
        """(With the lock held.) An entry heavier than the whole budget is not kept."""
        weight = 0 if self._weigh is None else self._weigh(value)
        self.bytes += weight - self._weights.pop(key, 0)
        self._items[key] = value
        self._weights[key] = weight
        self._items.move_to_end(key)
        while self._items and (len(self._items) > self._size or (
                self._max_bytes is not None and self.bytes > self._max_bytes)):
            old, _ = self._items.popitem(last=False)
            self.bytes -= self._weights.pop(old, 0)
