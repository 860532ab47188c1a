"""Ratings: OpenSkill's Plackett-Luce model over each rated round's finishing order
(docs/ratings.md).

The move that ends a round of a rated game writes the round to the rating queue, in its
own transaction; the relay hands the queue to a rater (a Celery task on its own queue,
or the API process without a broker), which rates the queued rounds in the order they
ended, under one lock, each exactly once (``rated_rounds``' key, not luck), and writes
each player's new rating, its history, and the ``rating.changed`` webhooks.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable

from openskill.models import PlackettLuce

from services.commands import RatingPolicy
from services.domain import (
    Hook, PlayerRef, RatedRound, Rating, RoundToRate, key_owning,
)
from services.ports import UnitOfWork

BATCH = 200  # rounds rated in one transaction
MODEL = PlackettLuce()  # OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300


def initial() -> Rating:
    first = MODEL.rating()
    return Rating(first.mu, first.sigma, first.ordinal(), 0)


def pool_of(preset: str, players: int, policy: RatingPolicy) -> str:
    """The pool a game's rounds are rated in: its preset and player count (or as the
    policy merges them), and the season, if any, as a suffix."""
    family = {"preset-players": f"{preset}-{players}", "preset": preset,
              "one": "all"}[policy.pools]
    return family if not policy.season else f"{family}.{policy.season}"


def rate_all(uow_factory: Callable[[], UnitOfWork], policy: RatingPolicy) -> int:
    """Rate every queued round, a batch at a time; how many were taken off the queue."""
    total = 0
    while done := rate_pending(uow_factory(), policy):
        total += done
    return total


def rate_pending(uow: UnitOfWork, policy: RatingPolicy, limit: int = BATCH) -> int:
    """Rate up to ``limit`` queued rounds, oldest first; how many were taken off the
    queue. Whoever else rates at the same moment waits for this one's commit. (A batch
    reads no game: each round was queued with what rating it needs.)"""
    with uow:
        claimed = uow.ratings.claim(limit)
        pools = {(r.game_id, r.round_no): pool_of(r.preset, len(r.players), policy)
                 for r in claimed}
        fresh = uow.ratings.mark_rated([(g, n, pool) for (g, n), pool in pools.items()])
        todo = []  # each round once, even queued twice in the batch
        for r in claimed:
            if (r.game_id, r.round_no) in fresh:
                fresh.discard((r.game_id, r.round_no))
                todo.append(r)
        held = _stored(uow, todo, pools)
        rounds = [(pools[(r.game_id, r.round_no)], rated) for r in todo
                  for rated in _rated(r, pools[(r.game_id, r.round_no)], held)]
        uow.ratings.save(rounds, {k: held[k] for k in {(p, r.ref) for p, r in rounds}},
                         _hooks(rounds))
        uow.commit()
    return len(claimed)


def _stored(uow: UnitOfWork, rounds: list[RoundToRate], pools: dict[tuple[str, int], str]
            ) -> dict[tuple[str, PlayerRef], Rating]:
    """The stored ratings of every player of ``rounds``, by pool: one read a pool."""
    wanted: dict[str, set[PlayerRef]] = defaultdict(set)
    for r in rounds:
        wanted[pools[(r.game_id, r.round_no)]].update(p for p in r.players if p is not None)
    return {(pool, ref): rating for pool, refs in wanted.items()
            for ref, rating in uow.ratings.get(pool, sorted(refs)).items()}


def _rated(round_: RoundToRate, pool: str,
           held: dict[tuple[str, PlayerRef], Rating]) -> list[RatedRound]:
    """The round's rated players with their new ratings (``held`` updated: a player in
    two rounds of a batch goes from the first's rating to the second)."""
    places: dict[PlayerRef, list[int]] = defaultdict(list)
    seats: dict[PlayerRef, int] = {}
    for place, seat in enumerate(round_.ranking, start=1):
        ref = round_.players[seat]
        if ref is not None:
            places[ref].append(place)
            seats.setdefault(ref, seat)
    if len(places) < 2:
        return []  # nobody to be ranked against
    refs = list(places)
    before = [held.get((pool, r)) or initial() for r in refs]
    # A level that holds several seats is one player: ranked at its seats' mean place.
    ranks = [sum(places[r]) / len(places[r]) for r in refs]
    teams = MODEL.rate([[MODEL.rating(mu=b.mu, sigma=b.sigma)] for b in before], ranks=ranks)
    rated = []
    for ref, was, (after,) in zip(refs, before, teams):
        rating = Rating(after.mu, after.sigma, after.ordinal(), was.rounds + 1)
        held[(pool, ref)] = rating
        seat = seats[ref]
        rated.append(
            RatedRound(
                ref=ref,
                game_id=round_.game_id,
                round_no=round_.round_no,
                place=places[ref][0],
                role=round_.roles[seat],
                points=round_.points[seat],
                rating=rating,
            )
        )
    return rated


def _hooks(rounds: Iterable[tuple[str, RatedRound]]) -> dict[str, list[Hook]]:
    """``rating.changed`` for each key's player (not the AI levels, not an anonymous
    caller's tenant)."""
    hooks: dict[str, list[Hook]] = defaultdict(list)
    for pool, r in rounds:
        if not r.ref.is_ai and key_owning(r.ref.owner) is not None:
            hooks[r.ref.owner].append(Hook("rating.changed", {
                "pool": pool, "player_id": r.ref.player, "game_id": r.game_id,
                "round": r.round_no, "place": r.place, "mu": r.rating.mu,
                "sigma": r.rating.sigma, "ordinal": r.rating.ordinal,
                "rounds": r.rating.rounds}))
    return hooks
