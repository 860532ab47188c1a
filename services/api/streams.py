"""What an open event stream or long poll holds, bounded: so many per game, so many per
client (its key, else its seat token, else its address), in each API worker. One more:
``429 too_many_streams``. A slot is given back when the response is closed, however the
client left (``Response.call_on_close``)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Callable

from flask import current_app

from services.api.auth import Keys
from services.errors import TooManyStreams


class Slots:
    def __init__(self, per_game: int, per_client: int) -> None:
        self._per_game, self._per_client = per_game, per_client
        self._games: Counter[str] = Counter()
        self._clients: Counter[str] = Counter()
        self._lock = threading.Lock()

    def take(self, game_id: str, client: str) -> Callable[[], None]:
        """A slot for ``client`` on ``game_id``, and the function that gives it back
        (once, however often it is called)."""
        with self._lock:
            if self._games[game_id] >= self._per_game:
                raise TooManyStreams(f"{self._per_game} streams are open on this game already")
            if self._clients[client] >= self._per_client:
                raise TooManyStreams(f"this client has {self._per_client} streams open already: "
                                     "close one first")
            self._games[game_id] += 1
            self._clients[client] += 1
        given_back = threading.Event()

        def give_back() -> None:
            with self._lock:
                if given_back.is_set():
                    return
                given_back.set()
                for counter, name in ((self._games, game_id), (self._clients, client)):
                    counter[name] -= 1
                    if counter[name] <= 0:
                        del counter[name]

        return give_back

    def open(self) -> int:
        return sum(self._clients.values())


def slot(game_id: str) -> Callable[[], None]:
    """The request's slot for a stream or a long poll on ``game_id`` (its game's, a
    round review's), and how to give it back."""
    keys: Keys = current_app.extensions["president.keys"]
    slots: Slots = current_app.extensions["president.streams"]
    return slots.take(game_id, keys.client()[0])
