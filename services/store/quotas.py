"""What a quota counts (``QuotaRepository``): games under way, AI thinking time an
hour."""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from services.store.models import AiUsageRow, GameRow
from services.store.repository import _table


class SqlQuotas:
    """The ``QuotaRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    @property
    def session(self) -> Session:
        return self._session()

    def active_count(self, owner: str | None) -> int:
        query = select(func.count()).select_from(GameRow).where(
            GameRow.owner.is_(None) if owner is None else GameRow.owner == owner,
            GameRow.status.in_(("active", "waiting")))
        return int(self.session.scalar(query) or 0)

    def add_ai_time(self, owner: str, hour: datetime, seconds: float) -> None:
        """One statement whoever counts at the same moment (an upsert, on both
        databases)."""
        table = _table(AiUsageRow)
        insert_ = (postgresql_insert if self.session.get_bind().dialect.name == "postgresql"
                   else sqlite_insert)
        statement = insert_(table).values(owner=owner, hour=hour, seconds=seconds)
        self.session.execute(statement.on_conflict_do_update(
            index_elements=["owner", "hour"],
            set_={"seconds": table.c.seconds + statement.excluded.seconds}))

    def ai_time_since(self, owner: str, since: datetime) -> float:
        return float(self.session.scalar(
            select(func.coalesce(func.sum(AiUsageRow.seconds), 0.0))
            .where(AiUsageRow.owner == owner, AiUsageRow.hour >= since)) or 0.0)

