"""The UECda game log, FujiGokoro record v1.0 (``.dat``, UECDA.md §7.1): read and write.

Whitespace-separated tokens: ``player`` and the five names, then a block per game from
``/*`` to ``*/`` with ``game k`` (optional), ``score``, ``class``, ``seat``, ``dealt``,
``changed``, ``original`` (five card sets each), ``play`` (the moves) and ``result``.
Everything here is per player number; ``seat`` says where each player sits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Sequence

from engine import NotAPlay, cards_of
from workers.uecda.notation import card_from_token, card_to_token

PLAYERS = 5
_TOKENS = re.compile(r"/\*|\*/|[{}]|[^\s{}]+")


class LogError(ValueError):
    """The text is not a UECda game log; says where."""

    code = "bad_log"


@dataclass(frozen=True)
class LoggedGame:
    number: int  # 0-based, from ``game k`` or the block's position
    classes: tuple[int, ...]  # each player's role at the start (0 Daifugō … 4 Daihinmin)
    seats: tuple[int, ...]  # each player's seat
    dealt: tuple[int, ...]  # each player's hand as dealt (card masks)
    changed: tuple[int, ...]  # the cards each player gave away
    original: tuple[int, ...]  # each player's hand at the first lead
    moves: tuple[str, ...]  # the ``play`` tokens, thinking times dropped
    result: tuple[int, ...]  # each player's finishing place (0 first out … 4 last)

    @property
    def init(self) -> bool:
        """An init game (no roles, no exchange): every ``changed`` set is empty."""
        return not any(self.changed)


@dataclass(frozen=True)
class MatchLog:
    names: tuple[str, ...]
    games: tuple[LoggedGame, ...]


def read_log(text: str) -> MatchLog:
    tokens = _Tokens(_TOKENS.findall(text))
    tokens.expect("player")
    names = tuple(tokens.take() for _ in range(PLAYERS))
    games: list[LoggedGame] = []
    while tokens.more():
        games.append(_read_game(tokens, len(games)))
    return MatchLog(names, tuple(games))


def write_log(match: MatchLog) -> str:
    lines = ["player " + " ".join(match.names)]
    for game in match.games:
        lines += ["/*", f"game {game.number}", "score",
                  "class " + _ints(game.classes), "seat " + _ints(game.seats),
                  "dealt " + _sets(game.dealt), "changed " + _sets(game.changed),
                  "original " + _sets(game.original),
                  "play " + " ".join(game.moves), "result " + _ints(game.result), "*/"]
    return "\n".join(lines) + "\n"


def _read_game(tokens: _Tokens, position: int) -> LoggedGame:
    tokens.expect("/*")
    number = position
    if tokens.peek() == "game":
        tokens.take()
        number = tokens.number()
    tokens.expect("score")
    while tokens.peek() not in ("class", None):
        tokens.take()  # (never filled in)
    tokens.expect("class")
    classes = tokens.numbers(PLAYERS)
    tokens.expect("seat")
    seats = tokens.numbers(PLAYERS)
    if sorted(classes) != list(range(PLAYERS)) or sorted(seats) != list(range(PLAYERS)):
        raise LogError(f"game {number}: class and seat are each 0-4 once")
    tokens.expect("dealt")
    dealt = tokens.card_sets(PLAYERS)
    tokens.expect("changed")
    changed = tokens.card_sets(PLAYERS)
    tokens.expect("original")
    original = tokens.card_sets(PLAYERS)
    tokens.expect("play")
    moves = []
    while tokens.peek() not in ("result", None):
        moves.append(tokens.take().split("[", 1)[0])
    tokens.expect("result")
    result = tokens.numbers(PLAYERS)
    tokens.expect("*/")
    return LoggedGame(number, classes, seats, dealt, changed, original, tuple(moves), result)


class _Tokens:
    def __init__(self, tokens: Sequence[str]) -> None:
        self._tokens = tokens
        self._at = 0

    def more(self) -> bool:
        return self._at < len(self._tokens)

    def peek(self) -> str | None:
        return self._tokens[self._at] if self.more() else None

    def take(self) -> str:
        if not self.more():
            raise LogError("the log ends in the middle of a game")
        self._at += 1
        return self._tokens[self._at - 1]

    def expect(self, word: str) -> None:
        found = self.take()
        if found != word:
            raise LogError(f"token {self._at}: expected {word!r}, found {found!r}")

    def number(self) -> int:
        token = self.take()
        if not token.isdigit():
            raise LogError(f"token {self._at}: expected a number, found {token!r}")
        return int(token)

    def numbers(self, count: int) -> tuple[int, ...]:
        return tuple(self.number() for _ in range(count))

    def card_sets(self, count: int) -> tuple[int, ...]:
        return tuple(self._card_set() for _ in range(count))

    def _card_set(self) -> int:
        self.expect("{")
        mask = 0
        while (token := self.take()) != "}":
            try:
                bit = card_from_token(token).bit
            except NotAPlay as error:
                raise LogError(f"token {self._at}: {error}") from None
            if mask & bit:
                raise LogError(f"token {self._at}: {token} twice in one set")
            mask |= bit
        return mask


def _ints(values: Sequence[int]) -> str:
    return " ".join(map(str, values))


def _sets(masks: Sequence[int]) -> str:
    return " ".join("{ " + "".join(f"{t} " for t in _tokens_of(m)) + "}" for m in masks)


def _tokens_of(mask: int) -> Iterator[str]:
    return (card_to_token(c) for c in cards_of(mask))
