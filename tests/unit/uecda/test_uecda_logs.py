"""UECda game logs (UECDA.md §7): the notation's examples, logs written from games the
engine played read back and replayed (round trip), hand-written games covering the
rules, and logs the replay must find wrong."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from engine import NotAPlay, Play, Rules, apply, legal_actions, new_series
from president_cli.main import main
from workers.ai import decide
from engine.observe import observe
from workers.uecda.log import LogError, LoggedGame, MatchLog, read_log, write_log
from workers.uecda.notation import move_from_token, move_to_token
from workers.uecda.record import series_log
from workers.uecda.replay import replay_game, replay_match

# --- the notation: UECDA.md §7.2's own examples --------------------------------------------


@pytest.mark.parametrize("token, play", [
    ("p", "pass"), ("jk", "JR"), ("d-3", "3D"), ("ch-4", "4C 4H"),
    ("ds-9(s)", "9D JR=9S"),  # "♦9 + joker as ♠9"
    ("c-jqk", "JC-QC-KC"), ("h-678(7)", "6H-JR-8H"),  # "joker as ♥7"
    ("s--34(-)", "JR-3S-4S"),  # "joker-♠3-♠4": the first "-" splits
    ("d-a2+(+)", "AD-2D-JR"),
    ("cdhsx-7(cdhs)", "7C 7D 7H 7S JR"),  # "ignore the parentheses when x is present"
    ("cd-a[1234]", "AC AD"),  # the thinking time dropped
])
def test_the_notation_reads_the_examples(token: str, play: str) -> None:
    assert move_from_token(token) is Play.from_str(play)
    assert move_from_token(move_to_token(Play.from_str(play))) is Play.from_str(play)


@pytest.mark.parametrize("token", ["", "x", "d3", "z-3", "ds-9(c)", "dh-78", "-3", "s-3(",
                                   "cdhsx-78", "d-1", "s-+"])
def test_the_notation_refuses_what_is_no_move(token: str) -> None:
    with pytest.raises(NotAPlay):
        move_from_token(token)


# --- round trip: the engine's own games, written and replayed ------------------------------


def _played_series(seed: int, rounds: int, level: str | None = None) -> object:
    state = new_series(Rules.preset("uecda", rounds=rounds), seed)
    rng = random.Random(seed)
    while not state.is_over:
        if level is None:
            action = rng.choice(list(legal_actions(state)))
        else:
            action = decide(observe(state, state.to_act), level, seed=seed)
        state, _ = apply(state, action)
    return state


@pytest.mark.parametrize("seed, level", [(1, None), (2, None), (3, "normal")])
def test_the_engine_s_games_round_trip_through_the_log(seed: int, level: str | None) -> None:
    state = _played_series(seed, 5, level)
    rng = random.Random(seed)
    seating = [rng.sample(range(5), 5) for _ in range(5)]  # reseated every game, as UECda
    match = series_log(state, ["ann", "bob", "cy", "dee", "eve"], seating)  # type: ignore[arg-type]
    text = write_log(match)
    assert read_log(text) == match
    assert match.games[0].init and not any(g.init for g in match.games[1:])
    reports = replay_match(read_log(text))
    assert [r.ok for r in reports] == [True] * 5, [r.problem for r in reports]
    moves = sum(len(g.moves) for g in match.games)
    assert sum(r.moves for r in reports) == moves > 100


# --- hand-written games (init games, players at seats 0-4) ---------------------------------


def _game(hands: list[str], moves: str, result: list[int], number: int = 0) -> str:
    sets = " ".join("{ " + h + " }" for h in hands)
    return (f"/* game {number} score class 0 1 2 3 4 seat 0 1 2 3 4 dealt {sets} "
            f"changed {{ }} {{ }} {{ }} {{ }} {{ }} original {sets} play {moves} "
            f"result {' '.join(map(str, result))} */")


# The lock, playing on one's own play, the lone joker on a locked single, the 3 of spades
# on the joker, an 8-cut, going out, the lead passing to the next seat with cards.
LOCK_GAME = _game(
    ["d3 h9", "d4 jo", "d6 h6 s3 c8", "h7 s7 c9", "ht st"],
    "d-3 d-4 d-6 p p p p p "  # ♦ on ♦ locks ♦; P2 played last, passes on his own play
    "h-6 h-7 h-t p jk s-3 "  # ♥ locked; P1's lone joker lifts it and ends his hand; ♠3
    "c-8 "  # an 8-cut, P2's last card: he leads again, but is out: P3 leads
    "s-7 s-t p p h-9",  # ♠ locked, P0 and P3 pass, P4 is out: P0 leads and goes out
    [3, 0, 1, 4, 2])

# A straight of five through the 8 (a revolution and an 8-cut), the 3 strongest in the
# revolution, a joker below the 3, a ♠ lock in reversed order.
REVOLUTION_GAME = _game(
    ["d3 c4 c5 c6 c7 c8", "jo h3 h4", "s9", "s5", "dt"],
    "c-45678 d-3 p p p p "  # P0 out with the 3; the others pass: P1 leads
    "h--34(-) p p p "  # the joker below the 3: P1 out
    "s-9 s-5",  # P2 out; the 5 beats the 9 in the revolution: P3 out, P4 last
    [0, 1, 2, 3, 4])

# A pass on an empty table, four of a kind and the joker (a revolution), going out on
# the 3 of diamonds.
FIVE_GAME = _game(
    ["d3 cq dq hq sq jo", "ck dk c4", "h2 s2", "c5", "d7 s7"],
    "p cd-k hs-2 p p p "  # P0 passes the lead; P2 out on 2s: P3 leads
    "c-5 s-7 p p p "  # P3 out; P4 passes on his own 7: he leads
    "d-7 p p "  # P4 out; P0 and P1 pass: P0 leads (P4 is out)
    "cdhsx-q p p d-3",  # P1 passes, P0 on his own five passes, then leads his 3
    [3, 4, 0, 1, 2])

# Twenty passes in a row end the game: nobody went out, every place by lot.
ENDLESS_GAME = _game(["d3 s4", "c4", "h4", "c5", "d5"], " ".join(["p"] * 20), [0, 1, 2, 3, 4])


@pytest.mark.parametrize("block", [LOCK_GAME, REVOLUTION_GAME, FIVE_GAME, ENDLESS_GAME])
def test_hand_written_games_replay_legally(block: str) -> None:
    [report] = replay_match(read_log("player a b c d e " + block))
    assert report.ok, report.problem
    assert report.moves == len(read_log("player a b c d e " + block).games[0].moves)


def test_the_endless_passing_game_places_by_lot() -> None:
    [report] = replay_match(read_log("player a b c d e " + ENDLESS_GAME))
    assert report.by_lot == [0, 1, 2, 3, 4]
    longer = ENDLESS_GAME.replace("play p", "play p p")  # a 21st pass: after the end
    [late] = replay_match(read_log("player a b c d e " + longer))
    assert not late.legal and "after the game ended" in str(late.problem)


# --- logs the replay must find wrong ---------------------------------------------------------


def _one(block: str) -> LoggedGame:
    return read_log("player a b c d e " + block).games[0]


@pytest.mark.parametrize("old, new, code, player", [
    ("d-3 d-4 d-6", "d-3 d-4 h-6", "suit_locked", 2),  # ♦ is locked
    ("h-6 h-7 h-t p jk s-3", "h-6 h-7 h-t p jk c-8", "not_strong_enough", 2),  # only ♠3
    ("d-3 d-4", "d-3 d-3", "card_not_in_hand", 1),  # P1 holds no ♦3
    ("d-3 d-4", "d-3 d-4(d)", "not_a_play", 1),  # a joker naming the card of a single
])
def test_an_illegal_move_is_reported_with_its_player_and_reason(
        old: str, new: str, code: str, player: int) -> None:
    report = replay_game(_one(LOCK_GAME.replace(old, new)))
    assert not report.legal and code in str(report.problem)
    assert f"by player {player}" in str(report.problem)


def test_places_that_disagree_are_reported() -> None:
    report = replay_game(_one(LOCK_GAME.replace("result 3 0 1 4 2", "result 0 3 1 4 2")))
    assert report.legal and not report.places_agree and not report.ok


def test_an_exchange_is_checked_from_the_deal() -> None:
    state = _played_series(4, 2)
    game = series_log(state, list("abcde")).games[1]  # type: ignore[arg-type]
    assert not game.init and replay_game(game).exchange_agrees
    lower = game.classes.index(4)  # the Daihinmin gave his two strongest cards
    changed = list(game.changed)
    weakest = game.dealt[lower] & -game.dealt[lower]  # his weakest card instead of one
    changed[lower] = (changed[lower] & (changed[lower] - 1)) | weakest
    assert not replay_game(replace(game, changed=tuple(changed))).exchange_agrees


@pytest.mark.parametrize("text, where", [
    ("", "ends"), ("player a b c d e /* score", "ends"),
    ("player a b c d e /* score class 0 1 2 3 3 seat 0 1 2 3 4", "0-4"),
    ("players a b c d e", "'player'"),
    ("player a b c d e /* score class 0 1 2 3 4 seat 0 1 2 3 4 dealt { zz }", "not a UECda"),
])
def test_a_text_that_is_no_log_is_refused_with_where(text: str, where: str) -> None:
    with pytest.raises(LogError) as info:
        read_log(text)
    assert where in str(info.value) and info.value.code == "bad_log"


# --- the command ---------------------------------------------------------------------------


def test_president_uecda_replay_reports_per_game(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.dat"
    good.write_text(write_log(MatchLog(tuple("abcde"), (_one(LOCK_GAME), _one(FIVE_GAME)))))
    assert main(["uecda", "replay", str(good)]) == 0
    assert "2 of 2 games" in capsys.readouterr().out
    bad = tmp_path / "bad.dat"
    bad.write_text("player a b c d e " + LOCK_GAME.replace("d-6", "h-6"))
    assert main(["uecda", "replay", str(bad), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 1 and out["agree"] == 0 and not out["reports"][0]["legal"]
    (tmp_path / "junk.dat").write_text("not a log")
    assert main(["uecda", "replay", str(tmp_path / "junk.dat")]) == 2
    assert "bad_log" in capsys.readouterr().err
