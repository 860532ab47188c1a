"""UECda's tables (UECDA.md §6.3, §6.6): the worked encodings, cell for cell, both ways."""

from __future__ import annotations

import random

import pytest

from engine import Give, Play, Rules, apply, legal_actions, new_series
from workers.uecda import tables
from workers.uecda.tables import COLUMNS, TableError

# (play, the cells set: (row, column, value)) from §6.6; every other cell is 0
WORKED = [
    ("3D", [(2, 1, 1)]),  # "integer #31 at bytes 124-127"
    ("7C JR=7H", [(3, 5, 1), (1, 5, 2)]),  # "pair ♣7 + joker as ♥7"
    ("JS-QS-KS", [(0, 9, 1), (0, 10, 1), (0, 11, 1)]),
    ("6H-JR-8H", [(1, 4, 1), (1, 5, 2), (1, 6, 1)]),
    ("5D 5H 5S JR=5C", [(0, 3, 1), (1, 3, 1), (2, 3, 1), (3, 3, 2)]),  # "quad with joker"
    ("JR", [(0, 14, 2)]),  # "lone joker: e.g. [0][14] = 2"
    ("7C 7D 7H 7S JR", [(0, 5, 1), (1, 5, 1), (2, 5, 1), (3, 5, 1), (4, 5, 2)]),
    ("JR-3S-4S", [(0, 0, 2), (0, 1, 1), (0, 2, 1)]),  # "a joker below the 3 is column 0"
    ("pass", []),
]


@pytest.mark.parametrize("text, cells", WORKED)
def test_the_worked_encodings(text: str, cells: list[tuple[int, int, int]]) -> None:
    expected = [0] * tables.CELLS
    for row, column, value in cells:
        expected[row * COLUMNS + column] = value
    play = Play.from_str(text)
    assert tables.play_to_table(play) == expected
    assert tables.play_from_table(tables.decode(tables.encode(expected))) is play


def test_the_single_three_of_diamonds_on_the_wire() -> None:
    data = tables.encode(tables.play_to_table(Play.from_str("3D")))
    assert data[124:128] == b"\x00\x00\x00\x01" and data.count(0) == 479


def test_the_lone_joker_avoids_the_field_s_suits() -> None:
    spades_and_hearts = Play.from_str("7H 7S").suits
    cells = tables.play_to_table(Play.from_str("JR"), spades_and_hearts)
    assert cells[2 * COLUMNS + 14] == 2 and sum(cells) == 2  # row 2: diamonds


def test_the_profile_table() -> None:
    data = tables.decode(tables.profile("py"))
    assert data[0] == 20070 and data[COLUMNS:COLUMNS + 3] == (112, 121, 0)
    long = tables.decode(tables.profile("a name with spaces and more"))
    assert bytes(long[COLUMNS:COLUMNS + 10]) == b"anamewith\x00"  # 9 ASCII characters


def test_a_hand_and_a_gift_round_trip() -> None:
    hand = Give.from_str("give 3D 5D 6D 7C 7D 7H TC QH AS 2H 2S JR").mask
    table = tables.decode(tables.encode(tables.hand_to_table(hand)))
    assert tables.hand_from_table(table) == hand and table[4 * COLUMNS + 1] == 2


def test_every_legal_play_of_real_games_round_trips() -> None:
    rng, seen = random.Random(5), 0
    for seed in range(3):
        state = new_series(Rules.preset("uecda", rounds=2), seed)
        while not state.is_over:
            actions = list(legal_actions(state))
            for action in actions:
                if isinstance(action, Play):
                    table = tables.decode(tables.encode(tables.play_to_table(action)))
                    assert tables.play_from_table(table) is action
                    seen += 1
            state, _ = apply(state, rng.choice(actions))
    assert seen > 1000


@pytest.mark.parametrize("cells, reads", [
    ([(0, 1, 7)], "cell"),  # no cell holds a 7
    ([(0, 1, 1), (1, 2, 1)], "neither"),  # two ranks, two suits
    ([(0, 1, 1), (0, 2, 1), (0, 4, 1)], "consecutive"),  # a gap
    ([(0, 1, 2), (1, 1, 2)], "one joker"),
    ([(0, 0, 1)], "cell"),  # a natural card below the 3
])
def test_a_table_that_makes_no_play_is_refused(cells: list[tuple[int, int, int]],
                                               reads: str) -> None:
    table = [0] * tables.CELLS
    for row, column, value in cells:
        table[row * COLUMNS + column] = value
    with pytest.raises(TableError) as info:
        tables.play_from_table(tuple(table))
    assert reads in str(info.value) and info.value.code == "bad_table"


def test_a_table_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(TableError):
        tables.decode(b"\x00" * 479)
    with pytest.raises(TableError):
        tables.hand_from_table(tuple([0] * 14 + [1] + [0] * 105))  # column 14 in a hand
