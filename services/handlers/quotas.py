"""The quotas of an owning key, one check for every way a game is made (creation,
rematch, matchmaking): games under way at once, AI thinking time an hour."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import NamedTuple

from services.domain import Caller
from services.errors import QuotaExceeded
from services.ports import UnitOfWork


def hour_of(moment: datetime) -> datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def ai_time_used(uow: UnitOfWork, owner: str, now: datetime | None = None) -> float:
    """The AI thinking time ``owner``'s games used in the last hour, as the quota counts
    it: the hour under way and the one before."""
    since = hour_of(now or datetime.now(timezone.utc)) - timedelta(hours=1)
    return uow.quotas.ai_time_since(owner, since)


class Allowance(NamedTuple):
    """What ``owner`` may hold (None: no bound): games under way, AI seconds an hour."""

    owner: str | None
    max_active_games: int | None
    ai_seconds_per_hour: int | None


def allowance(caller: Caller) -> Allowance:
    """What a game ``caller`` makes is held to: its own quotas."""
    return Allowance(caller.owner, caller.max_active_games, caller.ai_seconds_per_hour)


def within_quota(uow: UnitOfWork, allowance: Allowance, ai_seats: bool,
                 pending: int = 0) -> None:
    """(In ``uow``.) QuotaExceeded unless ``allowance.owner`` may make one more game:
    fewer than its quota under way, counting ``pending`` games to come (its tickets
    waiting), and, for a game with AI seats, AI time left this hour (the hour under way
    and the one before). Two makings at the same moment may both pass: the quotas bound
    what an owner holds give or take its concurrency, which the rate limits bound."""
    owner, most, seconds = allowance
    if most is not None:
        held = uow.quotas.active_count(owner) + pending
        if held >= most:
            raise QuotaExceeded(f"{held} game(s) under way or waiting for a table, the most "
                                "this caller may hold: finish or wait for one")
    if ai_seats and seconds is not None and owner is not None:
        used = ai_time_used(uow, owner)
        if used >= seconds:
            raise QuotaExceeded(f"this caller's games used {used:.0f} s of AI thinking in "
                                f"the last hour, its quota is {seconds} s: wait for it")
