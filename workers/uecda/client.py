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

from engine import PASS, Give, Play, Role, Rules, State, apply, observe, round_from_hands
from engine.cards import deck_mask, single_bits
from engine.legal import lock_of
from engine.outcome import exchange_pairs, roles_by_place
from engine.state import Phase
from workers.ai import decide
from workers.uecda import tables
from workers.uecda.tables import TABLE_BYTES, Table, TableError, cell

log = logging.getLogger(__name__)
# The server's rules; the seat to act and the end of the game are the server's to say (its
# order, its lot past the endless-passing limit), so the engine is told who acts.
RULES = Rules.preset("uecda", rounds=1, first_lead="first_seat", pass_limit=0)
PLAYERS = 5
ACCEPTED = 9
GAME_ON, GAME_OVER, MATCH_OVER = 0, 1, 2
_INT = struct.Struct(">i")


class Disconnected(Exception):
    """The server closed the connection."""


@dataclass
class Game:
    """What the seat knows of the game under way: ``followed``, the engine's state of it
    (the others' hands placeholders of the sizes the server gave), which every observed
    action is applied to, so the engine alone decides trick ends, the lock, revolutions."""

    number: int
    player: int
    seat_of: list[int]  # the seat of each player number
    roles: tuple[Role, ...] | None  # by seat; None in an init game
    hand: int = 0  # as the deal table gave it
    followed: State | None = None  # from the game's first hand table on
    readable: bool = True  # False: the deal could not be read, every turn is a pass
    turn: int = 0

    @property
    def seat(self) -> int:
        return self.seat_of[self.player]


def _state(game: Game, hand: int, counts: list[int]) -> State:
    """The game's first-lead state from this seat's hand and everyone's counts."""
    return round_from_hands(RULES, _hands(game.seat, hand, counts, 0))._replace(
        roles=game.roles)


def _hands(seat: int, hand: int, counts: list[int], gone: int) -> tuple[int, ...]:
    """The seat's hand, and the others' made of the cards unseen (not in ``hand`` nor
    ``gone``) in the sizes ``counts`` gives: the level sees their sizes only."""
    unseen = deck_mask(RULES.jokers) & ~hand & ~gone
    hands = []
    for other, count in enumerate(counts):
        if other == seat:
            hands.append(hand)
            continue
        mask = 0
        for _ in range(count):
            if not unseen:
                raise TableError("the card counts are more than the cards unseen")
            low = unseen & -unseen
            mask |= low
            unseen ^= low
        hands.append(mask)
    return tuple(hands)


@dataclass
class Summary:
    player: int = -1
    games: int = 0
    turns: int = 0
    accepted: int = 0
    rejected: int = 0
    unreadable: int = 0  # tables logged and answered by a pass
    points: int = 0  # 5 for first out … 1 for last, summed (UECDA.md §4)
    # each game's, 0 first out; None for a game it could not follow (its deal unreadable)
    places: list[int | None] = field(default_factory=list)
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
        game = Game(summary.games, summary.player, list(range(PLAYERS)), None, readable=False)
    gift = max(cell(deal, 5, 1), 0)  # (other servers send -1 or -2 for none)
    if gift:
        sock.sendall(tables.encode(_choose_gift(game, deal, gift, level, seed, summary)))
    while True:
        hand = _read_table(sock)
        if game.followed is None and game.readable:
            _start(game, hand, summary)
        if cell(hand, 5, 2) == 1:  # this seat is to act
            play = _choose_play(game, hand, level, seed, summary)
            sock.sendall(tables.encode(play))
            summary.turns += 1
            accepted = _read_int(sock) == ACCEPTED
            if any(play):  # (a pass is answered 8 on a trick, 9 on an empty table)
                summary.accepted += accepted
                summary.rejected += not accepted
        _observe(game, _read_table(sock), summary)
        end = _read_int(sock)
        if end != GAME_ON:
            place = _place(game)
            summary.games += 1
            summary.places.append(place)
            summary.points += 0 if place is None else PLAYERS - place
            return end


def _place(game: Game) -> int | None:
    """The seat's place in the game it followed (the last out is the one not out)."""
    if game.followed is None:
        return None
    out = game.followed.went_out
    return out.index(game.seat) if game.seat in out else len(out)


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


def _start(game: Game, hand: Table, summary: Summary) -> None:
    """Follow the game from its first hand table: the hands after the exchange."""
    try:
        game.followed = _state(game, tables.hand_from_table(hand), _counts(game, hand))
    except (TableError, ValueError) as error:
        summary.unreadable += 1
        game.readable = False
        log.warning("uecda game %d first hand table: %s; passing this game", game.number,
                    error)


def _counts(game: Game, table: Table) -> list[int]:
    """Each seat's card count, as a hand or field table's row 6 gives them by player."""
    return [cell(table, 6, p) for p in _players_by_seat(game)]


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
        state = _state(game, game.hand, _after_tribute(game, _counts(game, deal)))._replace(
            phase=Phase.EXCHANGE, to_act=game.seat, pending=((game.seat, receiver, count),))
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
    if game.followed is None:
        return [0] * tables.CELLS  # (the game's deal was not readable: logged once)
    try:
        state = _this_turn(game, hand)
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


def _this_turn(game: Game, hand: Table) -> State:
    """The followed state with this seat to act, its hand and the counts as the table
    shows them; the table's field, revolution and lock checked against the engine's."""
    assert game.followed is not None
    state = game.followed
    mine, counts = tables.hand_from_table(hand), _counts(game, hand)
    if counts[game.seat] != mine.bit_count():
        raise TableError(f"the hand holds {mine.bit_count()} cards, its count says "
                         f"{counts[game.seat]}")
    if (cell(hand, 5, 4) == 1) != (not state.trick):
        raise TableError("the table's field is not the trick the engine followed")
    if (cell(hand, 5, 6) == 1) != state.reversed:
        raise TableError(f"the table's revolution ({cell(hand, 5, 6)}) is not the engine's")
    if (lock_of(state.trick) != 0) != (cell(hand, 5, 7) == 1):
        raise TableError(f"the table's lock ({cell(hand, 5, 7)}) is not the engine's")
    hands = _hands(game.seat, mine, counts, state.discard | state.table)
    return state._replace(hands=hands, to_act=game.seat)


def _players_by_seat(game: Game) -> list[int]:
    return sorted(range(PLAYERS), key=lambda p: game.seat_of[p])


def _observe(game: Game, field_: Table, summary: Summary) -> None:
    """Follow the turn from the field table sent after it (UECDA.md §6.5): a play if the
    actor's card count dropped, else a pass, applied through the engine."""
    state = game.followed
    if state is None:
        return
    try:
        seat = game.seat_of[cell(field_, 5, 3)]
        counts = _counts(game, field_)
        action = PASS
        if counts[seat] < state.hands[seat].bit_count():
            action = tables.play_from_table(field_)
            state = _holding(state, seat, action.mask, game.seat)
        game.followed, _ = apply(state._replace(to_act=seat), action)
        if [h.bit_count() for h in game.followed.hands] != counts:
            raise TableError(f"the counts are {counts}, the engine's are "
                             f"{[h.bit_count() for h in game.followed.hands]}")
    except (TableError, ValueError, IndexError) as error:
        summary.unreadable += 1
        log.warning("uecda game %d turn %d: field table: %s", game.number, game.turn, error)


def _holding(state: State, seat: int, cards: int, mine: int) -> State:
    """``seat``'s placeholder hand made to hold ``cards`` (which it played), each taken
    from the placeholder hand that held it in exchange for one of ``seat``'s own (never
    from ``mine``, the one real hand)."""
    hands = list(state.hands)
    for card in single_bits(cards):
        if hands[seat] & card:
            continue
        holder = next((h for h, hand in enumerate(hands) if hand & card), None)
        spare = hands[seat] & ~cards
        if holder is None or holder == mine or not spare:
            raise TableError(f"seat {seat} played a card it cannot hold")
        spare &= -spare
        hands[holder] ^= card | spare
        hands[seat] ^= card | spare
    return state._replace(hands=tuple(hands))


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
