"""A small UECda server for the client's tests, written from UECDA.md §6: five players,
the handshake, deal tables (the Daifugō and the Fugō after the tribute, the others
before), exchange tables, a hand table to everyone each turn, the play read from the
player to act and answered 9 or 8, a field table and an end flag to everyone.

The rules are the engine's ``uecda`` preset; a play the engine refuses is a rejection,
handled as a pass. Hooks make it misbehave on purpose: reject every k-th play, send a
table no client can read, close every connection after some turns.
"""

from __future__ import annotations

import random
import socket
import struct
import threading
from dataclasses import dataclass, field

from engine import (
    Give, PlayKind, Revolution, Role, Rules, State, apply, new_series, round_deal,
)
from engine.cards import highest_cards
from engine.legal import lock_of
from engine.outcome import roles_by_place
from engine.plays import PASS
from engine.state import Phase
from workers.uecda import tables
from workers.uecda.tables import CELLS, COLUMNS, TABLE_BYTES, TableError

PLAYERS = 5
_INT = struct.Struct(">i")


@dataclass
class Stats:
    turns: int = 0
    plays: int = 0
    rejected: int = 0
    locked_turns: int = 0
    revolutions: int = 0
    joker_groups: int = 0
    joker_straights: int = 0
    lone_jokers: int = 0
    garbage_answers: list[bytes] = field(default_factory=list)
    games: int = 0


class Server:
    def __init__(self, games: int = 3, seed: int = 0, reject_every: int = 0,
                 garbage_turn: int = -1, close_after: int = -1,
                 garbage_deal: int = -1) -> None:
        self.games, self.seed = games, seed
        self.reject_every, self.garbage_turn = reject_every, garbage_turn
        self.close_after, self.garbage_deal = close_after, garbage_deal
        self.stats = Stats()
        self.places: list[list[int]] = []  # each game's place of each player
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.error: BaseException | None = None
        self._clients: list[socket.socket] = []

    def start(self) -> Server:
        self.thread.start()
        return self

    def _serve(self) -> None:
        try:
            for player in range(PLAYERS):
                conn, _ = self.listener.accept()
                conn.settimeout(30)
                profile = tables.decode(_read(conn, TABLE_BYTES))
                assert profile[0] == tables.PROTOCOL, "the profile names protocol 20070"
                conn.sendall(_INT.pack(player))
                self._clients.append(conn)
            state = new_series(Rules.preset("uecda", rounds=self.games), self.seed)
            rng = random.Random(self.seed)
            player_at = list(range(PLAYERS))
            while not state.is_over:
                if state.round_no % 3 == 1:  # new seats every 3 games (UECDA.md §3.3)
                    rng.shuffle(player_at)
                state = self._game(state, player_at)
        except (ConnectionError, OSError) as error:
            if self.stats.turns != self.close_after:
                self.error = error
        except BaseException as error:  # surfaced by the test
            self.error = error
        finally:
            for conn in self._clients:
                conn.close()
            self.listener.close()

    def _game(self, state: State, player_at: list[int]) -> State:
        seat_of = [player_at.index(p) for p in range(PLAYERS)]
        roles = state.roles
        by_place = roles_by_place(PLAYERS)
        classes = [by_place.index(roles[seat_of[p]]) if roles else 0 for p in range(PLAYERS)]
        dealt = round_deal(state, state.round_no)
        for p, conn in enumerate(self._clients):
            seat = seat_of[p]
            upper = roles is not None and roles[seat] in (Role.PRESIDENT, Role.VICE_PRESIDENT)
            cells = tables.hand_to_table(state.hands[seat] if upper or not roles else dealt[seat])
            cells[5 * COLUMNS] = 1
            if roles and roles[seat] is Role.PRESIDENT:
                cells[5 * COLUMNS + 1] = 2
            elif roles and roles[seat] is Role.VICE_PRESIDENT:
                cells[5 * COLUMNS + 1] = 1
            cells[5 * COLUMNS + 3] = 6
            if p == 0 and state.round_no - 1 == self.garbage_deal:
                cells[4 * COLUMNS + 9] = 3  # no hand cell holds a 3
            self._status_row6(cells, [dealt[s].bit_count() for s in range(PLAYERS)], classes,
                              player_at)
            conn.sendall(tables.encode(cells))
        while state.phase is Phase.EXCHANGE:
            giver, _, count = state.pending[0]
            gift = tables.decode(_read(self._clients[player_at[giver]], TABLE_BYTES))
            state = self._exchange(state, gift, count)
        round_no, field_cells = state.round_no, [0] * CELLS
        while state.round_no == round_no and not state.is_over:
            state, field_cells = self._turn(state, player_at, classes, field_cells)
        self.stats.games += 1
        ranking = state.results[-1].ranking
        self.places.append([ranking.index(seat_of[p]) for p in range(PLAYERS)])
        return state

    def _exchange(self, state: State, gift: tables.Table, count: int) -> State:
        hand = state.hands[state.to_act]
        try:
            mask = tables.hand_from_table(gift)
            give = Give(mask)
            return apply(state, give)[0]
        except ValueError:  # the server takes the strongest cards instead (§3.2)
            return apply(state, Give(highest_cards(hand, count)))[0]

    def _turn(self, state: State, player_at: list[int], classes: list[int],
              field_cells: list[int]) -> tuple[State, list[int]]:
        actor, round_no = state.to_act, state.round_no
        if not state.trick:
            field_cells = [0] * CELLS
        locked = lock_of(state.trick) != 0
        self.stats.locked_turns += locked
        for p, conn in enumerate(self._clients):
            seat = player_at.index(p)
            cells = tables.hand_to_table(state.hands[seat])
            cells[5 * COLUMNS + 2] = int(seat == actor)
            cells[5 * COLUMNS + 3] = player_at[actor]
            cells[5 * COLUMNS + 4] = int(not state.trick)
            cells[5 * COLUMNS + 6] = int(state.reversed)
            cells[5 * COLUMNS + 7] = int(locked)
            if seat == actor and self.stats.turns == self.garbage_turn:
                cells[0] = 7  # no card cell holds a 7
            self._status_row6(cells, [h.bit_count() for h in state.hands], classes, player_at)
            conn.sendall(tables.encode(cells))
        raw = _read(self._clients[player_at[actor]], TABLE_BYTES)
        if self.stats.turns == self.garbage_turn:
            self.stats.garbage_answers.append(raw)
        self.stats.turns += 1
        if self.stats.turns == self.close_after:
            raise ConnectionAbortedError("closed on purpose")
        before = state
        state, accepted, played = self._apply(state, tables.decode(raw))
        # the counts after the play, in this game (the engine may have dealt the next)
        counts = [h.bit_count() for h in before.hands]
        if played:
            counts[actor] -= tables.play_from_table(tables.decode(raw)).size
        self._clients[player_at[actor]].sendall(_INT.pack(9 if accepted else 8))
        if played:
            field_cells = list(tables.decode(raw))[:5 * COLUMNS] + [0] * (CELLS - 5 * COLUMNS)
        for conn in self._clients:
            cells = field_cells[:5 * COLUMNS] + [0] * (CELLS - 5 * COLUMNS)
            cells[5 * COLUMNS + 3] = player_at[actor]
            cells[5 * COLUMNS + 4] = int(not played and not state.trick)
            cells[5 * COLUMNS + 6] = int(state.reversed)
            self._status_row6(cells, counts, classes, player_at)
            conn.sendall(tables.encode(cells))
        end = 2 if state.is_over else 1 if state.round_no != round_no else 0
        for conn in self._clients:
            conn.sendall(_INT.pack(end))
        return state, field_cells

    def _apply(self, state: State, table: tables.Table) -> tuple[State, bool, bool]:
        """(next state, accepted, cards played). A refused play is a pass, answered 8."""
        try:
            play = tables.play_from_table(table)
        except TableError:
            play = None
        empty = not state.trick
        if play and self.reject_every and (self.stats.plays + 1) % self.reject_every == 0:
            play = None  # rejected on purpose
            self.stats.plays += 1
        if play:
            try:
                after, events = apply(state, play)
            except ValueError:
                play = None
            else:
                self.stats.plays += 1
                self.stats.revolutions += sum(isinstance(e, Revolution) for e in events)
                self.stats.lone_jokers += play.kind is PlayKind.JOKER
                self.stats.joker_groups += play.kind is PlayKind.GROUP and play.jokers > 0
                self.stats.joker_straights += play.kind is PlayKind.STRAIGHT and play.jokers > 0
                return after, True, True
        refused = any(table[:5 * COLUMNS])  # cards sent: not a pass
        self.stats.rejected += refused
        return apply(state, PASS)[0], empty and not refused, False

    @staticmethod
    def _status_row6(cells: list[int], counts_by_seat: list[int], classes: list[int],
                     player_at: list[int]) -> None:
        for p in range(PLAYERS):
            cells[6 * COLUMNS + p] = counts_by_seat[player_at.index(p)]
            cells[6 * COLUMNS + 5 + p] = classes[p]
        for seat in range(PLAYERS):
            cells[6 * COLUMNS + 10 + seat] = player_at[seat]


def _read(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ConnectionResetError("the client closed")
        data += chunk
    return data
