"""Ratings in and out of the database: the queue of rounds to rate, the rounds rated,
each player's rating per pool, its history, and the leaderboards (index
ix_ratings_board: pool, owner, ordinal)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from sqlalchemy import (
    ColumnElement, and_, case, delete, func, insert, literal, or_, select, text, tuple_,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from services.domain import (
    AI_OWNER, Hook, PlayerRef, PoolSummary, RatedRound, Rating, Standing,
)
from services.store.models import (
    RatedRoundRow, RatingHistoryRow, RatingQueueRow, RatingRow, utcnow,
)
from services.store.timing import clock
from services.store.webhooks import write_hooks

LOCK = text("SELECT pg_advisory_xact_lock(7215036)")  # one rater at a time (PostgreSQL)
Cursor = tuple[float, str, str]  # (ordinal, owner, player) of the row before


class SqlRatings:
    """The ``RatingRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    @property
    def _postgresql(self) -> bool:
        return self._session().get_bind().dialect.name == "postgresql"

    def claim(self, limit: int) -> list[tuple[str, int]]:
        """(On SQLite, the DELETE takes the database's one write lock: the same effect
        as PostgreSQL's advisory lock, for the rest of the transaction.)"""
        session = self._session()
        if not self.pending():
            return []
        if self._postgresql:
            session.execute(LOCK)
        oldest = select(RatingQueueRow.id).order_by(RatingQueueRow.id).limit(limit)
        rows = session.execute(
            delete(RatingQueueRow).where(RatingQueueRow.id.in_(oldest.scalar_subquery()))
            .returning(RatingQueueRow.id, RatingQueueRow.game_id, RatingQueueRow.round)
            .execution_options(synchronize_session=False)).all()
        return [(game_id, round_no) for _, game_id, round_no in sorted(rows)]

    def pending(self) -> bool:
        return self._session().scalar(select(RatingQueueRow.id).limit(1)) is not None

    def mark_rated(self, game_id: str, round_no: int, pool: str) -> bool:
        insert_ = postgresql_insert if self._postgresql else sqlite_insert
        # (RETURNING: this engine's psycopg gives an INSERT no row count)
        inserted = self._session().connection().execute(
            insert_(RatedRoundRow).values(game_id=game_id, round=round_no, pool=pool,
                                          rated_at=utcnow())
            .on_conflict_do_nothing(index_elements=["game_id", "round"])
            .returning(RatedRoundRow.round)).first()
        return inserted is not None

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

    def board(self, pool: str, owner: str, min_rounds: int, limit: int,
              after: Cursor | None) -> list[Standing]:
        seen = _seen(pool, owner, min_rounds)
        query = select(RatingRow).where(seen).order_by(*_BEST_FIRST).limit(limit)
        if after is not None:
            query = query.where(_worse_than(*after))
        rows = list(self._session().scalars(query))
        if not rows:
            return []
        first = self._better_count(seen, rows[0]) + 1
        return [Standing(first + n, PlayerRef(r.owner, r.player), _rating(r))
                for n, r in enumerate(rows)]

    def around(self, pool: str, owner: str, ref: PlayerRef, min_rounds: int,
               count: int) -> list[Standing]:
        seen = _seen(pool, owner, min_rounds)
        session = self._session()
        me = session.scalar(select(RatingRow).where(seen, RatingRow.owner == ref.owner,
                                                    RatingRow.player == ref.player))
        if me is None:
            return []
        key = (me.ordinal, me.owner, me.player)
        above = list(session.scalars(select(RatingRow).where(seen, _better_than(*key))
                                     .order_by(*_WORST_FIRST).limit(count)))
        below = list(session.scalars(select(RatingRow).where(seen, _worse_than(*key))
                                     .order_by(*_BEST_FIRST).limit(count)))
        rows = [*reversed(above), me, *below]
        first = self._better_count(seen, me) + 1 - len(above)
        return [Standing(first + n, PlayerRef(r.owner, r.player), _rating(r))
                for n, r in enumerate(rows)]

    def _better_count(self, seen: ColumnElement[bool], row: RatingRow) -> int:
        return int(self._session().scalar(
            select(func.count()).select_from(RatingRow)
            .where(seen, _better_than(row.ordinal, row.owner, row.player))) or 0)

    # --- a player ----------------------------------------------------------------------

    def history(self, owner: str, player: str, limit: int) -> list[tuple[str, RatedRound]]:
        rows = self._session().scalars(
            select(RatingHistoryRow).where(RatingHistoryRow.owner == owner,
                                           RatingHistoryRow.player == player)
            .order_by(RatingHistoryRow.id.desc()).limit(limit))
        return [(r.pool, RatedRound(PlayerRef(r.owner, r.player), r.game_id, r.round,
                                    r.place, r.role, r.points,
                                    Rating(r.mu, r.sigma, r.ordinal)))
                for r in rows]

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
        return [PoolSummary(r.pool, _rating(r), int(series), int(presidents), int(trous),
                            int(points))
                for r, series, presidents, trous, points in rows]


_BEST_FIRST = (RatingRow.ordinal.desc(), RatingRow.owner, RatingRow.player)
_WORST_FIRST = (RatingRow.ordinal, RatingRow.owner.desc(), RatingRow.player.desc())


def _seen(pool: str, owner: str, min_rounds: int) -> ColumnElement[bool]:
    """A key sees its own players and the AI levels."""
    return and_(RatingRow.pool == pool, RatingRow.owner.in_({owner, AI_OWNER}),
                RatingRow.rounds >= min_rounds)


def _better_than(ordinal: float, owner: str, player: str) -> ColumnElement[bool]:
    return or_(RatingRow.ordinal > ordinal,
               and_(RatingRow.ordinal == ordinal,
                    tuple_(RatingRow.owner, RatingRow.player) < tuple_(literal(owner),
                                                                       literal(player))))


def _worse_than(ordinal: float, owner: str, player: str) -> ColumnElement[bool]:
    return or_(RatingRow.ordinal < ordinal,
               and_(RatingRow.ordinal == ordinal,
                    tuple_(RatingRow.owner, RatingRow.player) > tuple_(literal(owner),
                                                                       literal(player))))


def _count(condition: ColumnElement[bool]) -> Any:
    return func.sum(case((condition, 1), else_=0))


def _rating(row: RatingRow) -> Rating:
    return Rating(row.mu, row.sigma, row.ordinal, row.rounds)
