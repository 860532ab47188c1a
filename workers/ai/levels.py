"""One entry point per decision: a seat's view in, one of its legal actions out.

The signature is the guarantee: a level receives a ``View`` (what ``engine.observe``
lets that seat see) and nothing else, so it cannot read another seat's cards.
"""

from __future__ import annotations

from typing import Callable

from engine.cards import mask_of
from engine.observe import View
from engine.plays import Action, Play
from workers.ai.budget import Budget
from workers.ai.heuristics import easy_choice, normal_choice, normal_gift
from workers.ai.search import search

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
    return normal_choice(hand, legal, view.reversed)  # type: ignore[arg-type]


def _hard(view: View, seed: int, budget: Budget | None) -> Action:
    return search(view, seed, budget or DEFAULT_BUDGETS["hard"])


def _expert(view: View, seed: int, budget: Budget | None) -> Action:
    return search(view, seed, budget or DEFAULT_BUDGETS["expert"], max_candidates=12,
                  racing=True)


_POLICIES: dict[str, Callable[[View, int, Budget | None], Action]] = {
    "easy": _easy, "normal": _normal, "hard": _hard, "expert": _expert,
}
LEVELS = tuple(_POLICIES)  # the one list of level names, weakest first


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
