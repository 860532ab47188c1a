"""Round reviews in and out of the database (``ReviewRepository``): one row a round, its
result as JSON; leases by the database's clock (ix_reviews_open: the sweeper's scan)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import timedelta
from typing import Any, Callable

from sqlalchemy import and_, func, or_, select, tuple_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from services.domain import Decision, Review
from services.store.models import ReviewRow
from services.store.timing import aware, clock

_OPEN = ("queued", "running")


class SqlReviews:
    """The ``ReviewRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def add(self, review: Review) -> bool:
        session = self._session()
        try:
            with session.begin_nested():  # (a savepoint: the rest of the work stands)
                session.add(ReviewRow(game_id=review.game_id, round_no=review.round_no,
                                      state=review.state, owner=review.owner,
                                      requested_at=clock(session), sent_at=clock(session),
                                      attempts=0, done=0))
        except IntegrityError:
            return False
        return True

    def get(self, game_id: str, round_no: int) -> Review | None:
        row = self._session().get(ReviewRow, (game_id, round_no), populate_existing=True)
        return None if row is None else review_from_row(row)

    def claim(self, game_id: str, round_no: int | None, lease_s: float) -> Review | None:
        session = self._session()
        now = clock(session)
        free = or_(ReviewRow.state == "queued",
                   and_(ReviewRow.state == "running", ReviewRow.lease_until < now))
        if round_no is None:
            oldest = session.execute(
                select(ReviewRow.game_id, ReviewRow.round_no).where(free)
                .order_by(ReviewRow.requested_at).limit(1)
                .with_for_update(skip_locked=True)).first()
            if oldest is None:
                return None
            game_id, round_no = oldest
        claimed = session.connection().execute(
            update(ReviewRow).where(ReviewRow.game_id == game_id,
                                    ReviewRow.round_no == round_no, free)
            .values(state="running", lease_until=now + timedelta(seconds=lease_s),
                    attempts=ReviewRow.attempts + 1, done=0))
        return self.get(game_id, round_no) if claimed.rowcount == 1 else None

    def progress(self, game_id: str, round_no: int, done: int, lease_s: float) -> None:
        session = self._session()
        session.execute(
            update(ReviewRow).where(ReviewRow.game_id == game_id,
                                    ReviewRow.round_no == round_no,
                                    ReviewRow.state == "running")
            .values(done=done, lease_until=clock(session) + timedelta(seconds=lease_s))
            .execution_options(synchronize_session=False))

    def finish(self, review: Review) -> bool:
        session = self._session()
        finished = session.connection().execute(
            update(ReviewRow).where(ReviewRow.game_id == review.game_id,
                                    ReviewRow.round_no == review.round_no,
                                    ReviewRow.state == "running")
            .values(state=review.state, finished_at=clock(session), lease_until=None,
                    done=review.done, result=result_to_json(review), error=review.error))
        return bool(finished.rowcount == 1)

    def send_again(self, after_s: float, limit: int) -> list[tuple[str, int]]:
        session = self._session()
        now = clock(session)
        rows = session.execute(
            select(ReviewRow.game_id, ReviewRow.round_no)
            .where(ReviewRow.state.in_(_OPEN),
                   ReviewRow.sent_at < now - timedelta(seconds=after_s),
                   or_(ReviewRow.state == "queued", ReviewRow.lease_until < now))
            .order_by(ReviewRow.requested_at).limit(limit)
            .with_for_update(skip_locked=True)).all()
        stale = [(game_id, round_no) for game_id, round_no in rows]
        if stale:  # (one statement for them all)
            session.execute(update(ReviewRow).where(
                tuple_(ReviewRow.game_id, ReviewRow.round_no).in_(stale)).values(sent_at=now))
        return stale

    def queued(self, owner: str | None) -> int:
        return int(self._session().scalar(
            select(func.count()).select_from(ReviewRow)
            .where(ReviewRow.owner.is_(owner) if owner is None else ReviewRow.owner == owner,
                   ReviewRow.state.in_(_OPEN))) or 0)


def result_to_json(review: Review) -> dict[str, Any]:
    return {"seats": list(review.seats),
            "decisions": [asdict(decision) for decision in review.decisions],
            "totals": {str(seat): lost for seat, lost in review.totals.items()}}


def review_from_row(row: ReviewRow) -> Review:
    result = row.result or {}
    return Review(
        game_id=row.game_id,
        round_no=row.round_no,
        state=row.state,
        owner=row.owner,
        requested_at=aware(row.requested_at),
        finished_at=None if row.finished_at is None else aware(row.finished_at),
        seats=tuple(result.get("seats", ())),
        decisions=tuple(Decision(**d) for d in result.get("decisions", ())),
        totals={int(seat): lost for seat, lost in result.get("totals", {}).items()},
        done=row.done,
        error=row.error,
        attempts=row.attempts,
    )
