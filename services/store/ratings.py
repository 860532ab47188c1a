"""Ratings in and out of the database: the queue of rounds to rate, the rounds rated,
each player's rating per pool, its history, and the leaderboards (index
ix_ratings_board: pool, owner, ordinal)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from sqlalchemy import (
    ColumnElement, case, delete, func, insert, literal, select, text, tuple_,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from services.domain import (
    Hook, PlayerRef, PoolSummary, RatedRound, Rating, RoundToRate, Standing,
)
from services.store.models import (
    RatedRoundRow, RatingHistoryRow, RatingQueueRow, RatingRow, utcnow,
)
from services.store.timing import clock
from services.store.webhooks import write_hooks

LOCK = text("SELECT pg_advisory_xact_lock(7215036)")  # one rater at a time (PostgreSQL)
Cursor = tuple[float, str, str]  # (ordinal, owner, player): a row's place on a board
Page = tuple[float, str, str, int]  # the last row of the page before, and its rank


class SqlRatings:
    """The ``RatingRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    @property
    def _postgresql(self) -> bool:
        return self._session().get_bind().dialect.name == "postgresql"

    def claim(self, limit: int) -> list[RoundToRate]:
        """(On SQLite, the DELETE takes the database's one write lock: the same effect
        as PostgreSQL's advisory lock, for the rest of the transaction.)"""
        session = self._session()
        if not self.pending():
            return []
        if self._postgresql:
            session.execute(LOCK)
        q = RatingQueueRow
        oldest = select(q.id).order_by(q.id).limit(limit)
        rows = session.execute(
            delete(q).where(q.id.in_(oldest.scalar_subquery()))
            .returning(q.id, q.game_id, q.round, q.preset, q.players, q.result)
            .execution_options(synchronize_session=False)).all()
        return [RoundToRate(game_id=game_id, round_no=round_no, preset=preset,
                            players=tuple(None if p is None else PlayerRef(*p) for p in players),
                            ranking=tuple(result["ranking"]), roles=tuple(result["roles"]),
                            points=tuple(result["points"]))
                for _, game_id, round_no, preset, players, result in sorted(rows)]

    def pending(self) -> bool:
        return self._session().scalar(select(RatingQueueRow.id).limit(1)) is not None

    def mark_rated(self, rounds: Sequence[tuple[str, int, str]]) -> set[tuple[str, int]]:
        if not rounds:
            return set()
        insert_ = postgresql_insert if self._postgresql else sqlite_insert
        now = utcnow()
        inserted = self._session().connection().execute(
            insert_(RatedRoundRow).values([
                {"game_id": game_id, "round": round_no, "pool": pool, "rated_at": now}
                for game_id, round_no, pool in rounds])
            .on_conflict_do_nothing(index_elements=["game_id", "round"])
            .returning(RatedRoundRow.game_id, RatedRoundRow.round)).all()
        return {(game_id, round_no) for game_id, round_no in inserted}

    def get(self, pool: str, refs: Sequence[PlayerRef]) -> dict[PlayerRef, Rating]:
        if not refs:
            return {}
        rows = self._session().execute(
            select(RatingRow).where(RatingRow.pool == pool,
                                    tuple_(RatingRow.owner, RatingRow.player)
                                    .in_([tuple(r) for r in refs]))).scalars()
        return {PlayerRef(r.owner, r.player): _rating(r) for r in rows}

    def save(self, rounds: Sequence[tuple[str, RatedRound]],
             latest: dict[tuple[str, PlayerRef], Rating], hooks: dict[str, list[Hook]]
             ) -> None:
        if not rounds:
            return
        connection, at = self._session().connection(), clock(self._session())
        connection.execute(insert(RatingHistoryRow).values([
            {"pool": pool, "owner": r.ref.owner, "player": r.ref.player,
             "game_id": r.game_id, "round": r.round_no, "place": r.place, "role": r.role,
             "points": r.points, "mu": r.rating.mu, "sigma": r.rating.sigma,
             "ordinal": r.rating.ordinal, "rated_at": at} for pool, r in rounds]))
        insert_ = postgresql_insert if self._postgresql else sqlite_insert
        statement = insert_(RatingRow).values([
            {"pool": pool, "owner": ref.owner, "player": ref.player, "mu": rating.mu,
             "sigma": rating.sigma, "ordinal": rating.ordinal, "rounds": rating.rounds,
             "updated_at": at} for (pool, ref), rating in latest.items()])
        connection.execute(statement.on_conflict_do_update(
            index_elements=["pool", "owner", "player"],
            set_={name: statement.excluded[name]
                  for name in ("mu", "sigma", "ordinal", "rounds", "updated_at")}))
        for owner, owned in hooks.items():
            write_hooks(connection, owner, owned, at)

    # --- leaderboards ----------------------------------------------------------------
    # Best first: ordinal, then player, descending. A board is one owner's: the key's
    # players and the AI levels as its games rated them, one index range (pool, owner,
    # ordinal, player).

    def board(self, pool: str, owner: str, min_rounds: int, limit: int,
              after: Page | None) -> list[Standing]:
        """(``after``'s rank, which its cursor carries, numbers the page: no count.)"""
        key = None if after is None else (after[0], after[1], after[2])
        rows = self._nearest(pool, owner, min_rounds, key, limit, worse=True)
        first = 1 if after is None else after[3] + 1
        return [Standing(first + n, PlayerRef(r.owner, r.player), _rating(r))
                for n, r in enumerate(rows)]

    def around(self, pool: str, owner: str, ref: PlayerRef, min_rounds: int,
               count: int) -> list[Standing]:
        if ref.owner != owner:
            return []
        session = self._session()
        me = session.get(RatingRow, (pool, ref.owner, ref.player))
        if me is None or me.rounds < min_rounds:
            return []
        key = _key(me)
        above = self._nearest(pool, owner, min_rounds, key, count, worse=False)
        below = self._nearest(pool, owner, min_rounds, key, count, worse=True)
        better = int(session.scalar(select(func.count()).select_from(RatingRow).where(
            *_in(pool, owner, min_rounds), _beyond(owner, key, worse=False))) or 0)
        rows = [*above, me, *below]
        first = better + 1 - len(above)
        return [Standing(first + n, PlayerRef(r.owner, r.player), _rating(r))
                for n, r in enumerate(rows)]

    def _nearest(self, pool: str, owner: str, min_rounds: int, key: Cursor | None,
                 count: int, worse: bool) -> list[RatingRow]:
        """Up to ``count`` rows of ``owner``'s board nearest ``key`` (None: the top) on
        one side of it, best first."""
        rows = self._side(pool, owner, min_rounds, key, count, worse)
        return sorted(rows, key=_key, reverse=True)

    def _side(self, pool: str, owner: str, min_rounds: int, key: Cursor | None,
              limit: int, worse: bool) -> list[RatingRow]:
        """Up to ``limit`` of ``owner``'s rows nearest ``key`` on one side of it."""
        query = select(RatingRow).where(*_in(pool, owner, min_rounds))
        if key is not None:
            query = query.where(_beyond(owner, key, worse))
        order = ((RatingRow.ordinal.desc(), RatingRow.player.desc()) if worse
                 else (RatingRow.ordinal, RatingRow.player))
        return list(self._session().scalars(query.order_by(*order).limit(limit)))

    # --- a player ----------------------------------------------------------------------

    def history(self, owner: str, player: str, limit: int) -> list[tuple[str, RatedRound]]:
        rows = self._session().scalars(
            select(RatingHistoryRow).where(RatingHistoryRow.owner == owner,
                                           RatingHistoryRow.player == player)
            .order_by(RatingHistoryRow.id.desc()).limit(limit))
        return [
            (
                r.pool,
                RatedRound(
                    ref=PlayerRef(r.owner, r.player),
                    game_id=r.game_id,
                    round_no=r.round,
                    place=r.place,
                    role=r.role,
                    points=r.points,
                    rating=Rating(r.mu, r.sigma, r.ordinal),
                ),
            )
            for r in rows
        ]

    def summaries(self, owner: str, player: str) -> list[PoolSummary]:
        h = RatingHistoryRow
        figures = (select(h.pool, func.count(func.distinct(h.game_id)).label("series"),
                          _count(h.role == "president").label("presidents"),
                          _count(h.role == "trou").label("trous"),
                          func.sum(h.points).label("points"))
                   .where(h.owner == owner, h.player == player).group_by(h.pool).subquery())
        rows = self._session().execute(
            select(RatingRow, figures.c.series, figures.c.presidents, figures.c.trous,
                   figures.c.points)
            .join(figures, figures.c.pool == RatingRow.pool)
            .where(RatingRow.owner == owner, RatingRow.player == player)
            .order_by(RatingRow.pool))
        return [
            PoolSummary(
                pool=r.pool,
                rating=_rating(r),
                series=int(series),
                presidents=int(presidents),
                trous=int(trous),
                points=int(points),
            )
            for r, series, presidents, trous, points in rows
        ]


def _in(pool: str, owner: str, min_rounds: int) -> tuple[ColumnElement[bool], ...]:
    return (RatingRow.pool == pool, RatingRow.owner == owner, RatingRow.rounds >= min_rounds)


def _key(row: RatingRow) -> Cursor:
    return (row.ordinal, row.owner, row.player)


def _beyond(owner: str, key: Cursor, worse: bool) -> ColumnElement[bool]:
    """``owner``'s rows after ``key`` (worse) or before it (better), best first; said
    in terms its index range takes (ordinal, player), the owner being fixed."""
    ordinal, key_owner, player = key
    if owner == key_owner:
        mine, theirs = tuple_(RatingRow.ordinal, RatingRow.player), tuple_(literal(ordinal),
                                                                           literal(player))
        return mine < theirs if worse else mine > theirs
    if owner < key_owner:
        return RatingRow.ordinal <= ordinal if worse else RatingRow.ordinal > ordinal
    return RatingRow.ordinal < ordinal if worse else RatingRow.ordinal >= ordinal


def _count(condition: ColumnElement[bool]) -> Any:
    return func.sum(case((condition, 1), else_=0))


def _rating(row: RatingRow) -> Rating:
    return Rating(row.mu, row.sigma, row.ordinal, row.rounds)
