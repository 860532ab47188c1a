"""A small LRU cache for per-game values that cannot go stale: each is fixed once and for
all (a game's seating, a seat's view rendered at a version) or says which version it is of
(the newest state a process has seen), so a hit is never wrong, and old entries simply
age out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class VersionedCache(Generic[K, V]):
    """Least recently used first out; safe to share between a process's threads.

    A lookup takes no lock: each of its two steps is one call into the C ``OrderedDict``,
    which no other thread interrupts (the GIL), and the entry it found may only have been
    pushed out by another thread in between. Writes, which check and evict, take it."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
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
            self._items[key] = value
            self._items.move_to_end(key)
            if len(self._items) > self._size:
                self._items.popitem(last=False)

    def put_if(self, key: K, value: V, replaces: Callable[[V, V], bool]) -> None:
        """Put ``value`` unless an entry is there that ``replaces(old, value)`` says is
        better kept: checked and put under one lock, so two threads cannot undo each
        other."""
        with self._lock:
            old = self._items.get(key)
            if old is None or replaces(old, value):
                self._items[key] = value
                self._items.move_to_end(key)
                if len(self._items) > self._size:
                    self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
