"""Replay a UECda game log through the engine (UECDA.md §7.3): was every move legal for
the player whose turn the engine says it was, and do the places agree with ``result``?

Engine seat k is the player whose ``seat`` is k, so the engine's turn order is the log's.
Each game starts from ``original`` (the hands at the first lead, the log's truth); the
exchange is checked on its own from ``dealt`` and ``changed``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import (
    IllegalAction, InvalidAction, Rules, State, WentOut, apply, exchange_pairs, roles_by_place,
    round_from_hands,
)
from engine.cards import highest_cards
from workers.uecda.log import LoggedGame, MatchLog
from workers.uecda.notation import move_from_token

RULES = Rules.preset("uecda", rounds=1)
_ROLES = roles_by_place(RULES.players)  # a log's class k is the role of place k
_TRIBUTES = tuple((_ROLES.index(lower), _ROLES.index(upper), count)
                  for lower, upper, count in exchange_pairs(RULES.players))


@dataclass
class GameReport:
    game: int
    moves: int  # moves replayed
    legal: bool  # every move legal for the player to act
    places_agree: bool  # the engine's places are the log's ``result``
    exchange_agrees: bool  # dealt, the tribute (strongest cards) and the gifts give original
    problem: str | None = None  # the first illegal move, or why the places differ
    by_lot: list[int] = field(default_factory=list)  # players placed by the passing rule

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "moves": self.moves, "legal": self.legal,
                "places_agree": self.places_agree, "exchange_agrees": self.exchange_agrees,
                "problem": self.problem, "by_lot": self.by_lot}

    @property
    def ok(self) -> bool:
        return self.legal and self.places_agree and self.exchange_agrees


def replay_match(match: MatchLog) -> list[GameReport]:
    return [replay_game(game) for game in match.games]


def replay_game(game: LoggedGame) -> GameReport:
    player_at = sorted(range(len(game.seats)), key=lambda p: game.seats[p])
    state = round_from_hands(RULES, [game.original[p] for p in player_at])
    report = GameReport(game.number, 0, True, False, exchange_agrees(game))
    out: list[int] = []  # seats that emptied their hands, in order
    for index, token in enumerate(game.moves):
        seat = state.to_act
        if state.is_over:
            return _illegal(report, f"move {index} ({token}) after the game ended")
        try:
            state, events = apply(state, move_from_token(token))
        except (IllegalAction, InvalidAction) as error:
            return _illegal(report, f"move {index} ({token}) by player {player_at[seat]} "
                            f"(seat {seat}): {error.code}: {error}")
        report.moves += 1
        out += [e.seat for e in events if isinstance(e, WentOut)]
    if not state.is_over:
        return _illegal(report, f"the log ends with the game under way ({report.moves} moves)")
    _compare_places(report, game, state, player_at, out)
    return report


def exchange_agrees(game: LoggedGame) -> bool:
    """``dealt``, the lower players' tribute (their strongest cards, UECDA.md §3.2) and
    the upper players' gifts give ``original``; an init game has no exchange."""
    if game.init:
        return game.dealt == game.original
    holder = {role: game.classes.index(role) for role in range(len(game.classes))}
    hands = list(game.dealt)
    for lower, upper, count in _TRIBUTES:
        giver, receiver = holder[lower], holder[upper]
        if game.changed[giver] != highest_cards(hands[giver], count):
            return False
        hands[giver] ^= game.changed[giver]
        hands[receiver] |= game.changed[giver]
    for lower, upper, count in _TRIBUTES:  # then the gifts back (of any card now held)
        giver, receiver = holder[upper], holder[lower]
        gift = game.changed[giver]
        if gift.bit_count() != count or gift & ~hands[giver]:
            return False
        hands[giver] ^= gift
        hands[receiver] |= gift
    return tuple(hands) == game.original


def _compare_places(report: GameReport, game: LoggedGame, state: State, player_at: list[int],
                    out: list[int]) -> None:
    ranking = state.results[-1].ranking
    places = {player_at[seat]: place for place, seat in enumerate(ranking)}
    # past the endless-passing rule's limit the places left go by lot: the log's lot and
    # the engine's differ, so only the players who went out by playing are compared
    report.by_lot = sorted(player_at[s] for s in ranking[len(out):]) if len(out) < 4 else []
    wrong = [p for p in range(len(player_at))
             if p not in report.by_lot and places[p] != game.result[p]]
    report.places_agree = not wrong
    if wrong:
        report.problem = (f"places differ: the engine has {[places[p] for p in range(5)]}, "
                          f"the log {list(game.result)}")


def _illegal(report: GameReport, problem: str) -> GameReport:
    report.legal, report.problem = False, problem
    return report
