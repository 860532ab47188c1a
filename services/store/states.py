"""Decoded engine states, kept per process by (game id, version)."""

from __future__ import annotations

import threading
from collections import OrderedDict

from engine.state import State


class _StateCache:
    """Decoded states by (game id, version). A version's state never changes (every write
    moves the version on), so a hit is always right; decoding a long series' snapshot is
    most of the cost of a read."""

    def __init__(self, size: int = 2048) -> None:
        self._size = size
        self._states: OrderedDict[tuple[str, int], State] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int]) -> State | None:
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
            return state

    def put(self, key: tuple[str, int], state: State) -> None:
        with self._lock:
            self._states[key] = state
            if len(self._states) > self._size:
                self._states.popitem(last=False)


STATES = _StateCache()
