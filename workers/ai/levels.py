"""One entry point per decision: a seat's view in, one of its legal actions out.

The signature is the guarantee: a level receives a ``View`` (what ``engine.observe``
lets that seat see) and nothing else, so it cannot read another seat's cards.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Callable

from engine.cards import mask_of
from engine.observe import View
from engine.plays import Action, Play
from workers.ai.budget import Budget
from workers.ai.heuristics import easy_choice, normal_choice, normal_gift
from workers.ai.search import ENDGAME_STEPS, Weighed, weigh

DEFAULT_BUDGETS = {
    "hard": Budget(milliseconds=50),
    "expert": Budget(milliseconds=500),
}


def _easy(view: View, seed: int, budget: Budget | None) -> Action:
    return easy_choice(view.legal_actions)


def _normal(view: View, seed: int, budget: Budget | None) -> Action:
    legal = view.legal_actions
    hand = mask_of(view.hand)
    if not isinstance(legal[0], Play):
        return normal_gift(hand, view.pending[0][2])
    return normal_choice(hand, legal, view.reversed, bool(view.trick))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Search:
    """How a level searches (``search.weigh``'s keywords, by name): the candidates it
    weighs at most, whether it races them, the hand size from which its rollouts solve
    the seat's endgame (0: never) and the engine steps an endgame search may take before
    it gives up, whether it stops believing a seat shown not to play as Normal, whether
    it checks every play made (on the trick and as a lead) against Normal's exact
    choice, and the hand size above which its rollouts play the seat itself holding its
    power and groups rather than follow at a cost (0: never)."""

    max_candidates: int
    racing: bool
    endgame: int
    steps: int
    distrust: bool
    plays: bool
    hold: int


SEARCHES = {"hard": Search(8, False, 3, ENDGAME_STEPS, False, False, 0),
            "expert": Search(12, True, 6, ENDGAME_STEPS, True, True, 9)}
# At five seats or more an endgame search from 6 cards gives up on two positions in five
# within 400 steps, each try wasted: Expert solves from 5 with the room to settle them,
# better lines for no more time (docs/decisions/ai-0006-*).
MANY_SEATS = {"expert": replace(SEARCHES["expert"], endgame=5, steps=1200)}


def _searched(view: View, level: str, seed: int, budget: Budget | None,
              also: Action | None = None) -> tuple[Action, tuple[Weighed, ...]]:
    search = SEARCHES[level]
    if view.rules.players >= 5:
        search = MANY_SEATS.get(level, search)
    return weigh(view, seed, budget or DEFAULT_BUDGETS[level], **asdict(search), also=also)


def _hard(view: View, seed: int, budget: Budget | None) -> Action:
    return _searched(view, "hard", seed, budget)[0]


def _expert(view: View, seed: int, budget: Budget | None) -> Action:
    return _searched(view, "expert", seed, budget)[0]


_POLICIES: dict[str, Callable[[View, int, Budget | None], Action]] = {
    "easy": _easy, "normal": _normal, "hard": _hard, "expert": _expert,
}
LEVELS = tuple(_POLICIES)  # the one list of level names, weakest first


def analyse(view: View, level: str, *, seed: int = 0, budget: Budget | None = None,
            also: Action | None = None) -> tuple[Action, tuple[Weighed, ...]]:
    """The level's choice, as ``decide`` makes it, and, for the levels that search (Hard
    and Expert), each candidate it weighed with its expected points and simulations,
    ``also`` among them (a play the seat took, weighed whatever the level thinks of it)."""
    if also is not None and also not in view.legal_actions:
        raise ValueError(f"{also} is not one of the seat's legal actions")
    if level not in SEARCHES:
        return decide(view, level, seed=seed, budget=budget), ()
    return _searched(view, level, seed, budget, also)


def decide(view: View, level: str, *, seed: int = 0, budget: Budget | None = None) -> Action:
    """The level's choice for the seat of ``view``; always one of ``view.legal_actions``."""
    policy = _POLICIES.get(level)
    if policy is None:
        raise ValueError(f"unknown AI level {level!r}; known: {', '.join(LEVELS)}")
    if not view.legal_actions:
        raise ValueError("this view has no legal action: it is not this seat's turn")
    action = policy(view, seed, budget)
    if action not in view.legal_actions:  # a bug here must never reach a game
        raise AssertionError(f"{level} chose {action}, which is not legal")
    return action
