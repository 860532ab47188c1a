"""Matchmaking on fakes (``tests/fakes.py``): a key's players queue for tables, one live
ticket each; the matcher seats tickets close in rating at one game, each with its seat's
token shown once; a cancelled ticket is never seated."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from fakes import FakeDatabase, PlainVault
from services.commands import OpenTicket, RatingPolicy
from services.domain import ANONYMOUS, ApiKey, Caller, PlayerRef, Rating
from services.errors import (
    KeyRequired, QuotaExceeded, SeedNotAllowed, TicketExists, TicketNotFound,
    TicketNotWaiting,
)
from services.handlers.matchmaking import cancel_ticket, match, open_ticket, read_ticket
from services.handlers.ratings import pool_of
from workers.ai import LEVELS

KEY = Caller(ApiKey("k1", "app", frozenset({"games:create-human"})))
POLICY = RatingPolicy()
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _ticket(db: FakeDatabase, player: str, caller: Caller = KEY, wait_s: float = 30.0,
            at: datetime = NOW) -> str:
    return open_ticket(OpenTicket(player, "classic", 4, wait_s), db.uow(), caller, LEVELS,
                       POLICY, now=at).id


def test_a_ticket_needs_a_key_and_takes_no_seed() -> None:
    db = FakeDatabase()
    with pytest.raises(KeyRequired):
        _ticket(db, "ann", caller=ANONYMOUS)
    with pytest.raises(SeedNotAllowed):
        open_ticket(OpenTicket("ann", "classic", 4, 30, seed=3), db.uow(), KEY, LEVELS,
                    POLICY)
    assert db.tickets == {}


def test_a_player_holds_one_live_ticket_and_may_cancel_it_once() -> None:
    db = FakeDatabase()
    first = _ticket(db, "ann")
    with pytest.raises(TicketExists):
        _ticket(db, "ann")
    assert cancel_ticket(first, db.uow(), KEY).state == "cancelled"
    with pytest.raises(TicketNotWaiting):
        cancel_ticket(first, db.uow(), KEY)
    assert _ticket(db, "ann") != first  # cancelled: no longer live


def test_a_waiting_ticket_counts_against_the_key_s_games_under_way() -> None:
    db = FakeDatabase()
    capped = Caller(ApiKey("k1", "app", frozenset({"games:create-human"})),
                    max_active_games=1)
    _ticket(db, "ann", caller=capped)
    with pytest.raises(QuotaExceeded):
        _ticket(db, "bob", caller=capped)
    assert len(db.tickets) == 1


def test_close_tickets_share_a_game_and_each_token_is_shown_once() -> None:
    db = FakeDatabase()
    ids = [_ticket(db, name, at=NOW + timedelta(seconds=n))
           for n, name in enumerate(["ann", "bob", "cat", "dan"])]
    assert match(db.uow(), PlainVault(), now=NOW + timedelta(seconds=5)) == 1
    tickets = [db.tickets[i] for i in ids]
    assert {t.state for t in tickets} == {"matched"}
    assert len({t.game_id for t in tickets}) == 1
    assert sorted(t.seat for t in tickets) == [0, 1, 2, 3]
    game = db.games[tickets[0].game_id].game  # type: ignore[index]
    assert {s.player for s in game.seats} == {"ann", "bob", "cat", "dan"}
    ticket, token = read_ticket(ids[0], db.uow(), KEY, PlainVault())
    assert token is not None and ticket.state == "matched"
    assert read_ticket(ids[0], db.uow(), KEY, PlainVault())[1] is None  # shown once
    with pytest.raises(TicketNotWaiting):
        cancel_ticket(ids[1], db.uow(), KEY)


def test_far_apart_players_wait_until_the_wait_is_over_then_get_ai_seats() -> None:
    db = FakeDatabase()
    pool = pool_of("classic", 4, POLICY)
    db.ratings[(pool, PlayerRef("k1", "pro"))] = Rating(40.0, 1.0, 37.0, 200)
    pro, new = _ticket(db, "pro", wait_s=60), _ticket(db, "new", wait_s=60)
    assert match(db.uow(), PlainVault(), now=NOW + timedelta(seconds=1)) == 0
    assert db.tickets[pro].state == db.tickets[new].state == "waiting"
    assert match(db.uow(), PlainVault(), now=NOW + timedelta(seconds=61)) == 2  # one each
    games = {db.tickets[pro].game_id, db.tickets[new].game_id}
    assert None not in games and len(games) == 2
    for game_id in games:
        assert game_id is not None
        assert [s.kind for s in db.games[game_id].game.seats].count("ai") == 3


def test_a_ticket_of_another_key_is_nobody_else_s() -> None:
    db = FakeDatabase()
    mine = _ticket(db, "ann")
    other = Caller(ApiKey("k2", "other", frozenset({"games:create-human"})))
    with pytest.raises(TicketNotFound):
        read_ticket(mine, db.uow(), other, PlainVault())
    with pytest.raises(TicketNotFound):
        cancel_ticket(mine, db.uow(), other)
    assert db.tickets[mine].state == "waiting"
