"""UECda's tables (protocol 20070, UECDA.md §6): 8 rows × 15 columns of big-endian int32,
to and from the engine's cards and plays. Rows 0-3 are ♠ ♥ ♦ ♣, columns 1-13 the ranks
3 … 2 (0 and 14: a straight's joker below the 3, above the 2); row 4 holds the joker of a
hand ([4][1] = 2) and of a 5-card group; rows 5 and 6 the status cells.

Every table read is checked: a cell this module cannot read raises ``TableError``, which
the client logs and answers with a pass.
"""

from __future__ import annotations

import struct
from typing import Sequence

from engine import Give, NotAPlay, Play, PlayKind
from engine.cards import ALL_CARDS, JOKER_BITS, JOKER_RED, RANKS

ROWS, COLUMNS = 8, 15
CELLS = ROWS * COLUMNS
TABLE_BYTES = 4 * CELLS
PROTOCOL = 20070
NAME_CELLS = 9  # the reference server keeps 9 characters of a name ([S] daihu.c:609)
_FORMAT = struct.Struct(f">{CELLS}i")
Table = tuple[int, ...]  # CELLS values, row-major


class TableError(ValueError):
    """A table the client cannot read (a cell out of range, cards that make no play)."""

    code = "bad_table"


def cell(table: Table, row: int, column: int) -> int:
    return table[row * COLUMNS + column]


def decode(data: bytes) -> Table:
    if len(data) != TABLE_BYTES:
        raise TableError(f"a table is {TABLE_BYTES} bytes, not {len(data)}")
    return _FORMAT.unpack(data)


def encode(cells: Sequence[int]) -> bytes:
    return _FORMAT.pack(*cells)


def profile(name: str) -> bytes:
    """The handshake's table: [0][0] the protocol, [1] the name, one ASCII code a cell."""
    cells = [0] * CELLS
    cells[0] = PROTOCOL
    safe = "".join(c for c in name if c.isascii() and c.isalnum())[:NAME_CELLS] or "president"
    for i, char in enumerate(safe):
        cells[COLUMNS + i] = ord(char)
    return encode(cells)


def _row(suit: int) -> int:
    return 3 - suit  # the engine's suits run ♣ ♦ ♥ ♠, the table's rows ♠ ♥ ♦ ♣


def _bit(row: int, column: int) -> int:
    return 1 << ((column - 1) * 4 + 3 - row)


def _card(row: int, column: int) -> str:
    return str(ALL_CARDS[(column - 1) * 4 + 3 - row])


def hand_from_table(table: Table) -> int:
    """The cards of rows 0-4: 1 a natural card, [4][1] = 2 the joker."""
    mask = 0
    for row in range(4):
        for column in range(COLUMNS):
            value = cell(table, row, column)
            if value == 1 and 1 <= column <= RANKS:
                mask |= _bit(row, column)
            elif value:
                raise TableError(f"hand cell [{row}][{column}] = {value}")
    for column in range(COLUMNS):
        value = cell(table, 4, column)
        if value == 2 and column == 1:
            mask |= 1 << JOKER_RED
        elif value:
            raise TableError(f"hand cell [4][{column}] = {value}")
    return mask


def play_from_table(table: Table) -> Play:
    """The play of rows 0-4 (a play table, a field table); no card is the pass."""
    naturals: list[tuple[int, int]] = []
    jokers: list[tuple[int, int]] = []
    for row in range(5):
        for column in range(COLUMNS):
            value = cell(table, row, column)
            if value == 1 and row < 4 and 1 <= column <= RANKS:
                naturals.append((row, column))
            elif value == 2:
                jokers.append((row, column))
            elif value:
                raise TableError(f"play cell [{row}][{column}] = {value}")
    if len(jokers) > 1:
        raise TableError("one joker at most")
    try:
        return _play(naturals, jokers)
    except NotAPlay as error:
        raise TableError(str(error)) from None


def _play(naturals: list[tuple[int, int]], jokers: list[tuple[int, int]]) -> Play:
    if not naturals:
        return Play.from_str("JR") if jokers else Play.PASS
    columns = {c for _, c in naturals + jokers}
    rows = {r for r, _ in naturals + jokers}
    if len(columns) == 1:  # a group; the joker names its cell, or is the fifth card
        (column,) = columns
        texts = [_card(r, column) for r, _ in naturals]
        texts += ["JR" if row == 4 else f"JR={_card(row, column)}" for row, _ in jokers]
        return Play.from_str(" ".join(texts))
    if len(rows) == 1 and len(naturals) + len(jokers) >= 3:  # a straight of one suit
        by_column = {c: "JR" for _, c in jokers}
        by_column.update({c: _card(r, c) for r, c in naturals})
        low, high = min(columns), max(columns)
        if len(by_column) != high - low + 1:
            raise NotAPlay("a straight's cards are consecutive")
        return Play.from_str("-".join(by_column[c] for c in range(low, high + 1)))
    raise NotAPlay("the cells make neither a group of one rank nor a straight of one suit")


def play_to_table(play: Play, avoid_suits: int = 0) -> list[int]:
    """The cells of a play (a pass: none). The lone joker goes to column 14 of a row whose
    suit is not in ``avoid_suits`` (the field's), as FujiGokoro does for the Java server."""
    cells = [0] * CELLS
    if not play:
        return cells
    if play.kind is PlayKind.JOKER:
        row = next((r for r in range(4) if not avoid_suits >> (3 - r) & 1), 0)
        cells[row * COLUMNS + 14] = 2
        return cells
    if play.kind is PlayKind.STRAIGHT:
        row = _row(play.suit)
        for rank in range(play.rank, play.high + 1):
            natural = 0 <= rank < RANKS and play.mask >> (rank * 4 + play.suit) & 1
            cells[row * COLUMNS + rank + 1] = 1 if natural else 2
        return cells
    column = play.rank + 1
    for card in play.cards:
        if not card.is_joker:
            cells[_row(card.index & 3) * COLUMNS + column] = 1
    named = play.suits & ~((play.mask >> (play.rank * 4)) & 15)
    if play.size == 5:
        cells[4 * COLUMNS + column] = 2
    elif play.mask & JOKER_BITS:
        for suit in range(4):
            if named >> suit & 1:
                cells[_row(suit) * COLUMNS + column] = 2
    return cells


def gift_to_table(give: Give) -> list[int]:
    """An exchange table: 1 for each natural card given, [4][1] = 2 for the joker."""
    cells = [0] * CELLS
    for card in give.cards:
        if card.is_joker:
            cells[4 * COLUMNS + 1] = 2
        else:
            cells[_row(card.index & 3) * COLUMNS + (card.index >> 2) + 1] = 1
    return cells


def hand_to_table(hand: int) -> list[int]:
    """A hand's cells (the server's side: the deal and hand tables)."""
    return gift_to_table(Give(hand)) if hand else [0] * CELLS
