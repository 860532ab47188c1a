"""Results as values: roles, a round's result, the series' outcome."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class Role(str, Enum):
    PRESIDENT = "president"
    VICE_PRESIDENT = "vice_president"
    NEUTRE = "neutre"
    VICE_TROU = "vice_trou"
    TROU = "trou"

    @property
    def french_name(self) -> str:
        """The French name, kept in every language."""
        return _TITLES[self]


_TITLES = {
    Role.PRESIDENT: "Président",
    Role.VICE_PRESIDENT: "Vice-Président",
    Role.NEUTRE: "Neutre",
    Role.VICE_TROU: "Vice-Trou du cul",
    Role.TROU: "Trou du cul",
}


def roles_by_place(players: int) -> tuple[Role, ...]:
    """The role of each finishing place: 3 players P/N/T, 4 P/VP/VT/T, 5+ with Neutres."""
    if players == 3:
        return (Role.PRESIDENT, Role.NEUTRE, Role.TROU)
    middle = (Role.NEUTRE,) * (players - 4)
    return (Role.PRESIDENT, Role.VICE_PRESIDENT, *middle, Role.VICE_TROU, Role.TROU)


def exchange_pairs(players: int) -> tuple[tuple[Role, Role, int], ...]:
    """The exchange: (who gives their best cards, who receives them and gives back as
    many of their choice, how many)."""
    if players >= 4:
        return ((Role.TROU, Role.PRESIDENT, 2), (Role.VICE_TROU, Role.VICE_PRESIDENT, 1))
    return ((Role.TROU, Role.PRESIDENT, 2),)


@dataclass(frozen=True, slots=True)
class Exchange:
    """Cards moved from one seat to another before a round's first lead."""

    giver: int
    receiver: int
    mask: int
    automatic: bool  # True: the Trou's or Vice-Trou's best cards, taken without choice


@dataclass(frozen=True, slots=True)
class RoundResult:
    round_no: int
    went_out: tuple[int, ...]  # seats in the order they emptied their hands, the last one left last
    ranking: tuple[int, ...]  # final places, penalties applied: ranking[0] is the Président
    roles: tuple[Role, ...]  # per seat
    points: tuple[int, ...]  # per seat: N for the first place down to 1
    penalized: tuple[int, ...]  # seats that went out on the strongest rank (no_finish_on_two)
    exchanges: tuple[Exchange, ...]  # the exchanges made before this round

    def to_dict(self) -> dict[str, Any]:
        """Its canonical JSON form, the exchanges left to the caller (stored whole, shown
        only as far as the reader may see them)."""
        return {"round": self.round_no, "went_out": list(self.went_out),
                "ranking": list(self.ranking), "roles": [x.value for x in self.roles],
                "points": list(self.points), "penalized": list(self.penalized)}


class Termination(str, Enum):
    ROUNDS_COMPLETED = "rounds_completed"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a series ended: cumulative scores and the final standing."""

    termination: Termination
    scores: tuple[int, ...]  # per seat
    standing: tuple[int, ...]  # seats by score, ties broken by the last round's ranking

    @property
    def winners(self) -> tuple[int, ...]:
        best = self.scores[self.standing[0]]
        return tuple(s for s in self.standing if self.scores[s] == best)
