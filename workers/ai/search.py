"""Hard and Expert: determinized Monte-Carlo search over sampled hands.

For one decision: sample the hidden hands consistently with what the seat knows
(``knowledge``), build the state with the engine (``state_from_view``), and for
each candidate action simulate the rest of the round with the Normal policy for
every seat. Every candidate is played out on the same sampled deals (common
random numbers), so their differences are not drowned by the luck of the deal.
The action with the best mean result (the points of the seat's finishing place)
wins. Simulation stops when the budget does; only complete deals count.
"""

from __future__ import annotations

import math
import random
import statistics
from typing import Sequence

from engine import apply_unchecked
from engine.determinize import state_from_view
from engine.game import generate
from engine.observe import View
from engine.plays import Action, Play, PlayKind
from engine.state import State
from workers.ai.budget import Budget
from workers.ai.heuristics import normal_choice, normal_gift, play_cost, weak_strength
from workers.ai.knowledge import knowledge_of, sample_hands

_GROUP = PlayKind.GROUP


def rollout(state: State, me: int, rng: random.Random, epsilon: float) -> int:
    """Play on with Normal for every seat (a random legal action with probability
    ``epsilon``) until ``me`` goes out or the round ends; return ``me``'s points."""
    n = len(state.hands)
    while state.to_act >= 0 and state.hands[me]:
        legal = generate(state)
        if len(legal) == 1:
            action: Action = legal[0]
        elif rng.random() < epsilon:
            action = legal[int(rng.random() * len(legal))]
        else:
            seat = state.to_act
            action = normal_choice(state.hands[seat], legal, state.reversed)  # type: ignore[arg-type]
        state = apply_unchecked(state, action)
    if state.results and state.results[-1].round_no == state.round_no:
        return state.results[-1].points[me]
    # went out with the round still going: the place is known (penalties aside)
    place = state.went_out.index(me)
    if state.penalized >> me & 1:
        return 1  # an offender ends below everyone who did not offend: count it as last
    return n - place


def candidates(view: View, limit: int) -> list[Action]:
    """The distinct choices worth simulating, best first by Normal's own ranking.

    Without straights, suits never matter again once the round is under way, so plays
    of one rank, size and joker count are one choice; the two jokers are always alike.
    """
    legal = view.legal_actions
    if not legal or not isinstance(legal[0], Play):
        return list(legal)
    hand = 0
    for card in view.hand:
        hand |= card.bit
    power_rank = 0 if view.reversed else 12
    seen: set[tuple[int, ...]] = set()
    distinct: list[Play] = []
    for play in legal:
        assert isinstance(play, Play)
        jokers = play.jokers
        key = ((play.kind, play.rank, play.size, jokers) if not view.rules.straights
               else (play.kind, play.rank, play.size, jokers, play.mask & ~(3 << 52)))
        if key not in seen:
            seen.add(key)
            distinct.append(play)
    distinct.sort(key=lambda p: (not p, play_cost(p, hand, power_rank) if p else 0,
                                 weak_strength(p, view.reversed) if p else 0, -p.size))
    if len(distinct) <= limit:
        return list(distinct)
    kept: list[Action] = list(distinct[:limit])
    if any(not p for p in distinct) and all(p for p in kept):
        kept[-1] = distinct[-1]  # always weigh passing against playing
    return kept


def search(view: View, seed: int, budget: Budget, *, max_candidates: int = 8,
           epsilon: float = 0.1, stop_when_sure: bool = False) -> Action:
    """The search's choice for the seat of ``view``; exchange gifts use Normal's rule.

    With ``stop_when_sure`` the search ends early once the leading candidate beats the
    runner-up on the same deals by a clear margin (paired z > 2.5 after 24 deals)."""
    legal = view.legal_actions
    if not legal:
        raise ValueError("this view has no legal action: it is not this seat's turn")
    if not isinstance(legal[0], Play):
        hand = 0
        for card in view.hand:
            hand |= card.bit
        return normal_gift(hand, view.pending[0][2])
    cands = candidates(view, max_candidates)
    if len(cands) == 1:
        return cands[0]
    return _best(view, cands, seed, budget, epsilon, stop_when_sure)


_SURE_Z, _SURE_MIN_DEALS = 2.5, 24


def _best(view: View, cands: Sequence[Action], seed: int, budget: Budget,
          epsilon: float, stop_when_sure: bool) -> Action:
    assert view.seat is not None
    me = view.seat
    rng = random.Random(seed)
    knowledge = knowledge_of(view)
    clock = budget.start()
    per_deal: list[list[int]] = []  # the points of every candidate, one row per sampled deal
    while not (per_deal and clock.exhausted()):
        world = state_from_view(view, sample_hands(knowledge, rng))
        row = []
        for action in cands:
            row.append(rollout(apply_unchecked(world, action), me, rng, epsilon))
            clock.spent += 1
            if clock.exhausted() and per_deal:
                break  # an incomplete deal would favour the candidates simulated first
        else:
            per_deal.append(row)
            if stop_when_sure and len(per_deal) % 8 == 0 and _sure(per_deal):
                break
    totals = [sum(column) for column in zip(*per_deal)]
    best = max(range(len(cands)), key=lambda i: (totals[i], -i))
    return cands[best]


def _sure(per_deal: list[list[int]]) -> bool:
    """Is the leader ahead of the runner-up beyond doubt, on the same deals?"""
    if len(per_deal) < _SURE_MIN_DEALS:
        return False
    totals = [sum(column) for column in zip(*per_deal)]
    order = sorted(range(len(totals)), key=lambda i: -totals[i])
    diffs = [row[order[0]] - row[order[1]] for row in per_deal]
    mean = statistics.fmean(diffs)
    spread = statistics.stdev(diffs)
    return spread == 0 and mean > 0 or spread > 0 and mean / spread * math.sqrt(len(diffs)) > _SURE_Z
