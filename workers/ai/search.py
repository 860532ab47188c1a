"""Hard and Expert: determinized Monte-Carlo search over sampled hands.

For one decision: sample the hidden hands consistently with what the seat knows
(``knowledge``), build the state with the engine (``state_from_view``), and for
each candidate action simulate the rest of the round with the Normal policy for
every seat (Expert: the seat's own best line near its end, ``endgame``). Every
candidate is played out on the same sampled deals (common random numbers), so their
differences are not drowned by the luck of the deal.
The action with the best mean result (the points of the seat's finishing place)
wins. Simulation stops when the budget does; only complete deals count.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import dataclass
from typing import Sequence

from engine import apply_unchecked
from engine.determinize import state_from_view
from engine.observe import View
from engine.plays import Action, Play
from engine.state import State
from workers.ai.budget import Budget
from workers.ai.endgame import best_points, choice, normal_step, points, suits_matter
from workers.ai.heuristics import normal_gift, play_cost, power_rank, weak_strength
from workers.ai.inference import beliefs_of, sample_believed
from workers.ai.knowledge import knowledge_of

ENDGAME_STEPS = 400  # an endgame search's most engine steps (about 1 ms)


def rollout(state: State, me: int, endgame: int = 0, hold: int = 0,
            steps: int = ENDGAME_STEPS) -> int:
    """Play on with Normal for every seat until ``me`` goes out or the round ends; return
    ``me``'s points. (Normal exactly: with a random action 10% of the time, Hard scored
    less against Normal on club + straights + 2 jokers: docs/decisions/ai-0002-*.) With ``endgame``,
    once ``me`` holds that many cards or fewer, its best play from there on, when found
    within ``steps`` engine steps (``endgame.best_points``); a search that gives up is not
    tried again before the hand is smaller. With ``hold``, while ``me`` holds more than
    that many cards it follows as ``heuristics.holding_choice``."""
    owned = False  # (the first step copies the caller's state; the next ones change that copy)
    while state.to_act >= 0 and state.hands[me]:
        if endgame and state.to_act == me and (held := state.hands[me].bit_count()) <= endgame:
            best = best_points(state, me, steps)
            if best is not None:
                return best
            endgame = held - 1  # (tried again only once the hand is smaller)
        holding = state.to_act == me and 0 < hold < state.hands[me].bit_count()
        state = normal_step(state, owned, holding)
        owned = True
    return points(state, me)


def candidates(view: View, limit: int) -> list[Action]:
    """The distinct choices worth simulating (``endgame.choice``), best first by
    Normal's own ranking."""
    legal = view.legal_actions
    if not legal or not isinstance(legal[0], Play):
        return list(legal)
    hand = 0
    for card in view.hand:
        hand |= card.bit
    power = power_rank(view.reversed)
    suits = suits_matter(view.rules)
    seen: set[tuple[int, ...]] = set()
    distinct: list[Play] = []
    for play in legal:
        assert isinstance(play, Play)
        key = choice(play, suits)
        if key not in seen:
            seen.add(key)
            distinct.append(play)
    distinct.sort(key=lambda p: (not p, play_cost(p, hand, power) if p else 0,
                                 weak_strength(p, view.reversed) if p else 0, -p.size))
    if len(distinct) <= limit:
        return list(distinct)
    kept: list[Action] = list(distinct[:limit])
    if any(not p for p in distinct) and all(p for p in kept):
        kept[-1] = distinct[-1]  # always weigh passing against playing
    return kept


def with_also(view: View, cands: list[Action], also: Action) -> list[Action]:
    """``cands`` with ``also`` among them, in place of the candidate it is the same
    choice as (so that its own text names it), or added."""
    if not isinstance(also, Play):
        return cands
    suits = suits_matter(view.rules)
    for i, cand in enumerate(cands):
        if isinstance(cand, Play) and choice(cand, suits) == choice(also, suits):
            return [*cands[:i], also, *cands[i + 1:]]
    return [*cands, also]


@dataclass(frozen=True)
class Weighed:
    """A candidate as the search saw it: the round's points it expects for the seat (the
    mean over the deals it was played out on), and how many there were."""

    action: Action
    expected_points: float
    simulations: int


def weigh(view: View, seed: int, budget: Budget, *, max_candidates: int = 8,
          racing: bool = False, endgame: int = 0, steps: int = ENDGAME_STEPS,
          distrust: bool = False, plays: bool = False, hold: int = 0,
          also: Action | None = None) -> tuple[Action, tuple[Weighed, ...]]:
    """The search's choice for the seat of ``view`` and what it weighed to make it
    (nothing when there was no choice to search: a gift, by Normal's rule, or one
    candidate). ``also``: a legal play weighed whatever the ranking (the action a seat
    took, for a review), named by its own text among the candidates.

    With ``racing`` the candidates clearly behind the leader are dropped as the deals
    accumulate, so the budget goes to the contenders and a clear decision ends early.
    ``distrust``, ``plays``: see ``inference.beliefs_of``; ``endgame``, ``steps``,
    ``hold``: see ``rollout``."""
    legal = view.legal_actions
    if not legal:
        raise ValueError("this view has no legal action: it is not this seat's turn")
    if not isinstance(legal[0], Play):
        hand = 0
        for card in view.hand:
            hand |= card.bit
        return normal_gift(hand, view.pending[0][2]), ()
    cands = candidates(view, max_candidates)
    if also is not None:
        cands = with_also(view, cands, also)
    if len(cands) == 1:
        return cands[0], ()
    return _best(view, cands, seed, budget, racing, endgame, steps, distrust, plays, hold)


# Racing (Expert): from 16 deals on, every 8 deals, a candidate behind the leader by
# more than 2.5 standard errors on the same deals is dropped; one left ends the search.
_RACE_Z, _RACE_FIRST, _RACE_EVERY = 2.5, 16, 8


def _best(view: View, cands: Sequence[Action], seed: int, budget: Budget,
          racing: bool, endgame: int, steps: int, distrust: bool,
          plays: bool, hold: int) -> tuple[Action, tuple[Weighed, ...]]:
    assert view.seat is not None
    me = view.seat
    rng = random.Random(seed)
    clock = budget.start()  # (reading the round's evidence is part of the decision's time)
    beliefs = beliefs_of(view, knowledge_of(view), distrust=distrust, plays=plays)
    alive = list(range(len(cands)))
    rows: list[list[int]] = []  # per sampled deal: the points of every candidate (0 once dropped)
    played = [0] * len(cands)  # the deals each was played out on
    while len(alive) > 1 and not (rows and clock.exhausted()):
        world = state_from_view(view, sample_believed(beliefs, rng))
        row = [0] * len(cands)
        for i in alive:
            row[i] = rollout(apply_unchecked(world, cands[i]), me, endgame, hold, steps)
            clock.spent += 1
            if clock.exhausted() and rows:
                break  # an incomplete deal would favour the candidates simulated first
        else:
            rows.append(row)
            for i in alive:
                played[i] += 1
            if racing and len(rows) >= _RACE_FIRST and len(rows) % _RACE_EVERY == 0:
                alive = _race(rows, alive)
    totals = [sum(column) for column in zip(*rows)]
    best = max(alive, key=lambda i: (totals[i], -i))
    return cands[best], tuple(
        Weighed(action, totals[i] / played[i] if played[i] else 0.0, played[i])
        for i, action in enumerate(cands))


def _race(rows: list[list[int]], alive: list[int]) -> list[int]:
    """The candidates not clearly behind the leader, compared on the same deals."""
    totals = {i: sum(row[i] for row in rows) for i in alive}
    leader = max(alive, key=lambda i: (totals[i], -i))
    kept = []
    for i in alive:
        diffs = [row[leader] - row[i] for row in rows]
        spread = statistics.stdev(diffs)
        mean = statistics.fmean(diffs)
        if i == leader or not (mean > 0 and (spread == 0 or
                                             mean / spread * math.sqrt(len(rows)) > _RACE_Z)):
            kept.append(i)
    return kept
