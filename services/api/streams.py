"""What an open event stream or long poll holds, bounded, in each API worker: a seat
holds so many on its own game (its own budget, by game and seat number, not token: a
seat that leaves and joins again gets none more), which spectators never take; the
spectators of a game (and a ticket's watchers) hold so many on it, and so many per
client (its key, else its address: a made-up token buys none). One more:
``429 too_many_streams``. A slot is given back when the response is closed, however
the client left (``Response.call_on_close``)."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Callable

from flask import current_app

from services.api.auth import Keys, bearer_token
from services.api.limits import accountable_here
from services.errors import TooManyStreams


class Slots:
    def __init__(self, per_game: int, per_client: int, per_seat: int = 2) -> None:
        self._per_game, self._per_client, self._per_seat = per_game, per_client, per_seat
        self._games: Counter[str] = Counter()
        self._clients: Counter[str] = Counter()
        self._seats: Counter[tuple[str, int]] = Counter()
        self._lock = threading.Lock()

    def take(self, game_id: str, client: str, seat: int | None = None) -> Callable[[], None]:
        """A slot on ``game_id``: ``seat``'s own, or else a spectator's for ``client``;
        and the function that gives it back (once, however often it is called)."""
        with self._lock:
            held = self._held(game_id, client, seat)
            for counter, name in held:
                counter[name] += 1
        given_back = threading.Event()

        def give_back() -> None:
            with self._lock:
                if given_back.is_set():
                    return
                given_back.set()
                for counter, name in held:
                    counter[name] -= 1
                    if counter[name] <= 0:
                        del counter[name]

        return give_back

    def _held(self, game_id: str, client: str, seat: int | None
              ) -> list[tuple[Counter[Any], Any]]:
        """What the slot asked for counts in, if there is room (under the lock)."""
        if seat is not None:
            if self._seats[(game_id, seat)] >= self._per_seat:
                raise TooManyStreams(f"this seat has {self._per_seat} streams open on its "
                                     "game already: close one first")
            return [(self._seats, (game_id, seat))]
        if self._games[game_id] >= self._per_game:
            raise TooManyStreams(f"{self._per_game} spectators' streams are open on this "
                                 "game already")
        if self._clients[client] >= self._per_client:
            raise TooManyStreams(f"this client has {self._per_client} streams open already: "
                                 "close one first")
        return [(self._games, game_id), (self._clients, client)]

    def open(self) -> int:
        return sum(self._games.values()) + sum(self._seats.values())


def slot(game_id: str) -> Callable[[], None]:
    """The request's slot for a stream or a long poll on ``game_id`` (its game's, a
    round review's), and how to give it back: its seat's if its token opens one, else a
    spectator's."""
    slots: Slots = current_app.extensions["president.streams"]
    token = bearer_token()
    seat = None if token is None else accountable_here(game_id, token)[1]
    return slots.take(game_id, _client(), seat)


def ticket_slot(ticket_id: str) -> Callable[[], None]:
    """The request's slot for watching a matchmaking ticket (its key's)."""
    slots: Slots = current_app.extensions["president.streams"]
    return slots.take(f"ticket:{ticket_id}", _client())


def _client() -> str:
    keys: Keys = current_app.extensions["president.keys"]
    return keys.client()[0]
