"""Play one seat of a UECda server (protocol 20070, UECDA.md §6) with an AI level.

The server's tables are read into the engine: the seat's hand, the trick as the field
tables showed it, the passes, the cards gone, the revolution; from them a ``State`` whose
other hands are placeholders of the right sizes, and the seat's ``View`` of it — all the
level ever sees. The engine checks what it reads: a table it cannot read, or one that
disagrees with the engine (the lock, the revolution, a card count), is logged with the
game and the turn and answered by a pass; it never ends the match.
"""

from __future__ import annotations

import logging
import socket
import struct
from dataclasses import dataclass, field
from typing import Any

from engine import Give, Play, PlayKind, Role, Rules, State, observe, round_from_hands
from engine.cards import deck_mask
from engine.legal import lock_of
from engine.outcome import exchange_pairs, roles_by_place
from engine.state import LogEntry, Phase
from workers.ai import decide
from workers.uecda import tables
from workers.uecda.tables import TABLE_BYTES, Table, TableError, cell

log = logging.getLogger(__name__)
RULES = Rules.preset("uecda", rounds=1)
PLAYERS = 5
ACCEPTED = 9
GAME_ON, GAME_OVER, MATCH_OVER = 0, 1, 2
_INT = struct.Struct(">i")
EIGHT = 5  # the 8's rank index


class Disconnected(Exception):
    """The server closed the connection."""


@dataclass
class Game:
    """What the seat knows of the game under way, from the tables it has read."""

    number: int
    player: int
    seat_of: list[int]  # the seat of each player number
    roles: tuple[Role, ...] | None  # by seat; None in an init game
    hand: int = 0
    counts: list[int] = field(default_factory=lambda: [0] * PLAYERS)  # by seat
    trick: list[tuple[int, Play]] = field(default_factory=list)
    passed: int = 0
    discard: int = 0
    went_out: list[int] = field(default_factory=list)
    history: list[LogEntry] = field(default_factory=list)
    turn: int = 0

    @property
    def seat(self) -> int:
        return self.seat_of[self.player]

    def state(self, reversed_: bool) -> State:
        """A play-phase state: this seat's hand, the others' made of the unseen cards in
        the sizes the server gave (the level sees their sizes only)."""
        unseen = deck_mask(RULES.jokers) & ~self.hand & ~self.discard
        for _, play in self.trick:
            unseen &= ~play.mask
        hands = []
        for seat in range(PLAYERS):
            if seat == self.seat:
                hands.append(self.hand)
                continue
            mask = 0
            for _ in range(self.counts[seat]):
                if not unseen:
                    raise TableError("the card counts are more than the cards unseen")
                low = unseen & -unseen
                mask |= low
                unseen ^= low
            hands.append(mask)
        base = round_from_hands(RULES.with_options(first_lead="first_seat"), hands)
        return base._replace(
            to_act=self.seat, trick=tuple(self.trick), passed=self.passed,
            discard=self.discard, reversed=reversed_, went_out=tuple(self.went_out),
            roles=self.roles, log=tuple(self.history), leader=self.seat)


@dataclass
class Summary:
    player: int = -1
    games: int = 0
    turns: int = 0
    accepted: int = 0
    rejected: int = 0
    unreadable: int = 0  # tables logged and answered by a pass
    points: int = 0  # 5 for first out … 1 for last, summed (UECDA.md §4)
    places: list[int] = field(default_factory=list)  # each game's, 0 first out
    disconnected: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "places": list(self.places)}


def play_match(host: str, port: int, level: str, name: str, *, seed: int = 0,
               timeout: float = 600.0) -> dict[str, Any]:
    """Play until the server ends the match or closes the connection."""
    summary = Summary()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        try:
            sock.sendall(tables.profile(name))
            summary.player = _read_int(sock)
            while _play_game(sock, summary, level, seed) != MATCH_OVER:
                pass
        except (Disconnected, ConnectionError, TimeoutError):
            summary.disconnected = True
    return summary.to_dict()


def _play_game(sock: socket.socket, summary: Summary, level: str, seed: int) -> int:
    deal = _read_table(sock)
    try:
        game = _new_game(deal, summary)
    except TableError as error:  # then every turn of this game is answered by a pass
        summary.unreadable += 1
        log.warning("uecda game %d deal table: %s; passing this game", summary.games, error)
        game = Game(summary.games, summary.player, list(range(PLAYERS)), None)
    gift = max(cell(deal, 5, 1), 0)  # (other servers send -1 or -2 for none)
    if gift:
        sock.sendall(tables.encode(_choose_gift(game, deal, gift, level, seed, summary)))
    while True:
        hand = _read_table(sock)
        mine = cell(hand, 5, 2) == 1
        if mine:
            play = _choose_play(game, hand, level, seed, summary)
            sock.sendall(tables.encode(play))
            summary.turns += 1
            accepted = _read_int(sock) == ACCEPTED
            if any(play):  # (a pass is answered 8 on a trick, 9 on an empty table)
                summary.accepted += accepted
                summary.rejected += not accepted
        _observe(game, hand, _read_table(sock), summary)
        end = _read_int(sock)
        if end != GAME_ON:
            place = game.went_out.index(game.seat) if game.seat in game.went_out \
                else len(game.went_out)
            summary.games += 1
            summary.places.append(place)
            summary.points += PLAYERS - place
            return end


def _new_game(deal: Table, summary: Summary) -> Game:
    player_at = [cell(deal, 6, 10 + s) for s in range(PLAYERS)]
    if sorted(player_at) != list(range(PLAYERS)):
        raise TableError(f"the seats are not the five players: {player_at}")
    seat_of = [player_at.index(p) for p in range(PLAYERS)]
    classes = [cell(deal, 6, 5 + p) for p in range(PLAYERS)]
    by_place = roles_by_place(PLAYERS)
    roles = None
    if sorted(classes) == list(range(PLAYERS)):  # (all 0 in an init game)
        roles = tuple(by_place[classes[player_at[s]]] for s in range(PLAYERS))
    game = Game(summary.games, summary.player, seat_of, roles)
    game.hand = tables.hand_from_table(deal)
    return game


def _choose_gift(game: Game, deal: Table, count: int, level: str, seed: int,
                 summary: Summary) -> list[int]:
    """The cards the Daifugō (2) or the Fugō (1) gives back, chosen from the engine's
    view of an exchange; a table of zeros (the server then takes the strongest) when
    the deal cannot be read."""
    try:
        receiver_role = Role.TROU if count == 2 else Role.VICE_TROU
        if game.roles is None:
            raise TableError("an exchange in a game without roles")
        receiver = game.roles.index(receiver_role)
        game.counts = _after_tribute(game, [cell(deal, 6, p) for p in _players_by_seat(game)])
        state = game.state(False)._replace(phase=Phase.EXCHANGE,
                                           pending=((game.seat, receiver, count),))
        give = decide(observe(state, game.seat), level, seed=seed + game.number)
        assert isinstance(give, Give)
        return tables.gift_to_table(give)
    except (TableError, ValueError) as error:
        summary.unreadable += 1
        log.warning("uecda game %d exchange: %s; the server chooses", game.number, error)
        return [0] * tables.CELLS
    except Exception:  # (as for a play)
        summary.unreadable += 1
        log.exception("uecda game %d exchange: the server chooses", game.number)
        return [0] * tables.CELLS


def _after_tribute(game: Game, dealt: list[int]) -> list[int]:
    """The deal table's counts are before the tribute: the Daihinmin's 2 strongest cards
    went to the Daifugō, the Hinmin's strongest to the Fugō (§3.2, §6.4)."""
    assert game.roles is not None
    counts = list(dealt)
    for lower, upper, count in exchange_pairs(PLAYERS):
        counts[game.roles.index(lower)] -= count
        counts[game.roles.index(upper)] += count
    counts[game.seat] = game.hand.bit_count()
    return counts


def _choose_play(game: Game, hand: Table, level: str, seed: int, summary: Summary) -> list[int]:
    """The level's play from the engine's view of this turn, or the pass when the table
    cannot be read or disagrees with the engine."""
    game.turn += 1
    try:
        _read_hand(game, hand)
        state = game.state(cell(hand, 5, 6) == 1)
        if (lock_of(state.trick) != 0) != (cell(hand, 5, 7) == 1):
            raise TableError(f"the table's lock ({cell(hand, 5, 7)}) is not the engine's")
        action = decide(observe(state, game.seat), level, seed=seed + game.turn)
        assert isinstance(action, Play)
        top = state.top
        return tables.play_to_table(action, top.suits if top else 0)
    except (TableError, ValueError) as error:
        summary.unreadable += 1
        log.warning("uecda game %d turn %d: %s; answered with a pass",
                    game.number, game.turn, error, exc_info=log.isEnabledFor(logging.DEBUG))
        return [0] * tables.CELLS
    except Exception:  # a bug of ours must not end the match: logged with its traceback
        summary.unreadable += 1
        log.exception("uecda game %d turn %d: answered with a pass", game.number, game.turn)
        return [0] * tables.CELLS


def _read_hand(game: Game, hand: Table) -> None:
    game.hand = tables.hand_from_table(hand)
    game.counts = [cell(hand, 6, p) for p in _players_by_seat(game)]
    if game.counts[game.seat] != game.hand.bit_count():
        raise TableError(f"the hand holds {game.hand.bit_count()} cards, its count says "
                         f"{game.counts[game.seat]}")
    if (cell(hand, 5, 4) == 1) != (not game.trick):
        raise TableError("the table's field is not the trick the engine followed")


def _players_by_seat(game: Game) -> list[int]:
    return sorted(range(PLAYERS), key=lambda p: game.seat_of[p])


def _observe(game: Game, hand: Table, field_: Table, summary: Summary) -> None:
    """Follow the turn from the field table sent after it: a play if the actor's card
    count dropped, else a pass (UECDA.md §6.5)."""
    try:
        if cell(hand, 5, 4) == 1 and game.trick:  # (resynchronised: the server says so)
            _end_trick(game)
        seat = game.seat_of[cell(field_, 5, 3)]
        counts = [cell(field_, 6, p) for p in _players_by_seat(game)]
        before = cell(hand, 6, cell(field_, 5, 3))
        top = game.trick[-1][1] if game.trick else None
        if counts[seat] < before:
            play = tables.play_from_table(field_)
            game.trick.append((seat, play))
            game.history.append(LogEntry(1, seat, play))
            if counts[seat] == 0:
                game.went_out.append(seat)
            over = _closes(play, top)
        else:
            game.passed |= 1 << seat
            game.history.append(LogEntry(1, seat, Play.PASS))
            over = False
        # every player still holding cards has passed (§7.3 step 4): after a pass, or a
        # play that emptied the last hand not to have passed
        over = over or game.passed.bit_count() >= sum(1 for c in counts if c)
        game.counts = counts
        if over:
            _end_trick(game)
    except (TableError, ValueError, IndexError) as error:
        summary.unreadable += 1
        log.warning("uecda game %d turn %d: field table: %s", game.number, game.turn, error)


def _closes(play: Play, top: Play | None) -> bool:
    """UECda's trick-ending plays (§2.5, §2.2): 8s, a straight through the 8, the 3 of
    spades on the lone joker."""
    if top is not None and top.kind is PlayKind.JOKER:
        return True
    if play.kind is PlayKind.STRAIGHT:
        return play.rank <= EIGHT <= play.high
    return play.kind is PlayKind.GROUP and play.rank == EIGHT


def _end_trick(game: Game) -> None:
    for _, play in game.trick:
        game.discard |= play.mask
    game.trick.clear()
    game.passed = 0


def _read_exact(sock: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise Disconnected()
        data += chunk
    return data


def _read_int(sock: socket.socket) -> int:
    value: int = _INT.unpack(_read_exact(sock, 4))[0]
    return value


def _read_table(sock: socket.socket) -> Table:
    return tables.decode(_read_exact(sock, TABLE_BYTES))
