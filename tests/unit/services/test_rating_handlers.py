"""Ratings on fakes (``tests/fakes.py``): the rater takes the queued rounds oldest first
and rates each exactly once (a round queued twice moves nobody twice); the finishing
order moves the ratings; unrated seats are left out; the leaderboard pages by cursor
and ``around`` sees the caller's own players and its view of the AI levels."""

from __future__ import annotations

from fakes import FakeDatabase
from services.commands import RatingPolicy
from services.domain import ApiKey, Caller, PlayerRef, RoundToRate
from services.handlers.leaderboards import leaderboard, profile
from services.handlers.ratings import initial, pool_of, rate_all, rate_pending

POLICY = RatingPolicy()
POOL = pool_of("classic", 4, POLICY)
ANN, BOB, CAT = (PlayerRef("k1", name) for name in ("ann", "bob", "cat"))
AI = PlayerRef("k1", "ai:normal")
ROLES = ("president", "vice-president", "vice-trou", "trou")
KEY = Caller(ApiKey("k1", "app", frozenset({"games:read"})))


def _round(game: str, number: int, players: tuple[PlayerRef | None, ...],
           ranking: tuple[int, ...]) -> RoundToRate:
    roles = [""] * len(players)
    for place, seat in enumerate(ranking):
        roles[seat] = ROLES[place]
    points = tuple(3 - ranking.index(seat) for seat in range(len(players)))
    return RoundToRate(game, number, "classic", players, ranking, tuple(roles), points)


def test_the_winner_rises_the_last_falls_and_an_unrated_seat_is_left_out() -> None:
    db = FakeDatabase()
    db.rating_queue.append(_round("g1", 1, (ANN, BOB, None, AI), (0, 3, 2, 1)))
    assert rate_all(db.uow, POLICY) == 1
    ratings = {ref: r for (pool, ref), r in db.ratings.items() if pool == POOL}
    assert set(ratings) == {ANN, BOB, AI}  # the anonymous seat is nobody's
    start = initial()
    assert ratings[ANN].ordinal > start.ordinal > ratings[BOB].ordinal
    assert {r.rounds for r in ratings.values()} == {1}
    assert [(p, r.ref, r.place, r.role) for p, r in db.rating_history
            if r.ref == ANN] == [(POOL, ANN, 1, "president")]
    assert db.rating_queue == []


def test_a_round_queued_twice_is_rated_once() -> None:
    db = FakeDatabase()
    twice = _round("g1", 1, (ANN, BOB, CAT, AI), (0, 1, 2, 3))
    db.rating_queue += [twice, twice]
    assert rate_pending(db.uow(), POLICY) == 2  # both taken off the queue
    assert {r.rounds for (_, _), r in db.ratings.items()} == {1}
    db.rating_queue.append(twice)  # and again later: already rated
    rate_all(db.uow, POLICY)
    assert {r.rounds for (_, _), r in db.ratings.items()} == {1}
    assert len(db.rating_history) == 4


def test_rounds_are_rated_in_order_each_on_the_ratings_before_it() -> None:
    db = FakeDatabase()
    for n in range(1, 4):
        db.rating_queue.append(_round("g1", n, (ANN, BOB, CAT, AI), (0, 1, 2, 3)))
    rate_pending(db.uow(), POLICY, limit=2)
    assert db.ratings[(POOL, ANN)].rounds == 2 and len(db.rating_queue) == 1
    rate_all(db.uow, POLICY)
    history = [r.rating.ordinal for _, r in db.rating_history if r.ref == ANN]
    assert history == sorted(history) and len(history) == 3  # ever higher, one a round


def test_the_board_pages_by_cursor_and_around_finds_its_player() -> None:
    db = FakeDatabase()
    for n in range(1, 4):
        db.rating_queue.append(_round("g1", n, (ANN, BOB, CAT, AI), (0, 1, 2, 3)))
    rate_all(db.uow, POLICY)
    first, cursor = leaderboard(POOL, 2, None, None, db.uow(), KEY, POLICY)
    assert cursor is not None
    rest, end = leaderboard(POOL, 2, cursor, None, db.uow(), KEY, POLICY)
    assert [s.ref for s in first + rest] == [ANN, BOB, CAT, AI] and end is None
    assert [s.rank for s in first + rest] == [1, 2, 3, 4]
    near, _ = leaderboard(POOL, 1, None, "cat", db.uow(), KEY, POLICY)
    assert [s.ref for s in near] == [BOB, CAT, AI]
    stranger = Caller(ApiKey("k2", "other", frozenset({"games:read"})))
    assert leaderboard(POOL, 10, None, None, db.uow(), stranger, POLICY) == ([], None)
    db.players[("k1", "ann")] = None  # (a seat of the key's named her)
    ann = profile("ann", db.uow(), KEY)
    assert [(p.pool, p.presidents, p.series) for p in ann.pools] == [(POOL, 3, 1)]
    assert [r.round_no for _, r in ann.history] == [3, 2, 1]  # newest first
