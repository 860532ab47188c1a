"""The exact endgame of one sampled deal: the best the searching seat can score when the
others play Normal and every hand is known (the deal's own, not the real one).

Rollouts play the searching seat as Normal too, which misjudges the last tricks most of
all: which card to keep to take the lead back, when to pass to go out later. Once the
seat holds few cards its choices are few, so Expert tries them all instead
(``best_points``), a depth-first search over its own actions with the others' answers
fixed by their policy. The search stops at the best place still open, and gives up past
a number of engine steps (the caller then rolls out as before).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from engine import apply_unchecked
from engine.game import generate
from engine.plays import Action, Play
from engine.rules import Rules
from engine.state import State
from workers.ai.heuristics import holding_choice, normal_choice


class _TooLong(Exception):
    pass


def points(state: State, me: int) -> int:
    """``me``'s points once it is out or the round is over."""
    if state.results and state.results[-1].round_no == state.round_no:
        return state.results[-1].points[me]
    if state.penalized >> me & 1:
        return 1  # an offender ends below everyone who did not offend: count it as last
    return len(state.hands) - state.went_out.index(me)


def normal_step(state: State, owned: bool = False, holding: bool = False) -> State:
    """The state after the seat to act plays Normal's choice (``owned``: made by changing
    ``state``, a simulation's own, where it can: ``apply_unchecked``; ``holding``: a
    follow as ``heuristics.holding_choice``)."""
    legal = generate(state)
    if len(legal) == 1:
        action: Action = legal[0]
    elif holding and state.trick:
        action = holding_choice(state.hands[state.to_act], legal, state.reversed)  # type: ignore[arg-type]
    else:
        action = normal_choice(state.hands[state.to_act], legal, state.reversed,  # type: ignore[arg-type]
                               bool(state.trick))
    return apply_unchecked(state, action, None, owned)


def best_points(state: State, me: int, steps: int) -> int | None:
    """The most points ``me`` can make from ``state`` against Normal play, or None when
    finding out would take more than ``steps`` engine steps."""
    left = [steps]
    try:
        return _best(state, me, left, {}, False)
    except _TooLong:
        return None


def _best(state: State, me: int, left: list[int], known: dict[tuple[object, ...], int],
          owned: bool) -> int:
    """(``owned``: ``state`` is this call's own, to change as it plays on.)"""
    while state.to_act >= 0 and state.hands[me] and state.to_act != me:
        state = normal_step(state, owned)
        owned = True
        left[0] -= 1
    if state.to_act < 0 or not state.hands[me]:
        return points(state, me)
    # (the same position reached by the seat's plays in another order is searched once)
    key = (state.hands, state.trick, state.passed, state.reversed, state.went_out,
           state.penalized)
    if key in known:
        return known[key]
    if left[0] <= 0:
        raise _TooLong
    ceiling = len(state.hands) - len(state.went_out)  # first of those still in
    best = 0
    for action in _choices(state):
        left[0] -= 1
        best = max(best, _best(apply_unchecked(state, action), me, left, known, True))
        if best >= ceiling:
            break
    known[key] = best
    return best


def _choices(state: State) -> list[Action]:
    """The seat's distinct choices (``choice``), Normal's first (often the best: the
    search can stop there)."""
    legal = cast(Sequence[Play], generate(state))  # (the play phase: plays only)
    if len(legal) == 1:
        return list(legal)
    first = normal_choice(state.hands[state.to_act], legal, state.reversed, bool(state.trick))
    suits = suits_matter(state.rules)
    seen = {choice(first, suits)}
    kept: list[Action] = [first]
    for action in legal:
        key = choice(action, suits)
        if key not in seen:
            seen.add(key)
            kept.append(action)
    return kept


def suits_matter(rules: Rules) -> bool:
    return rules.straights or rules.suit_lock


def choice(play: Play, suits_matter: bool) -> tuple[int, ...]:
    """What tells two plays apart as choices: without straights or the suit lock, suits
    never matter again once the round is under way, so plays of one rank, size and joker
    count are one choice; the two jokers are always alike."""
    if not suits_matter:
        return (play.kind, play.rank, play.size, play.jokers)
    return (play.kind, play.rank, play.size, play.jokers, play.mask & ~(3 << 52), play.suits)
