"""Matchmaking (docs/ratings.md#matchmaking): a key's players ask for a table; the
matcher seats waiting players of the same preset and table size whose ratings are close
(the closeness allowed widens as they wait); when a ticket's wait is over, its table is
completed with the AI level it named. Each matched ticket carries its game and its
seat's token, shown once.

One matcher at a time (a lock held for its transaction), each ticket claimed on
condition that it still waits: no ticket in two games, none lost, however many API and
worker processes run the matcher.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from typing import Callable

from engine import Rules, new_series_with_events
from services.commands import OpenTicket, RatingPolicy, TableDefaults
from services.domain import (
    Caller, Game, PlayerRef, Seat, Table, Ticket, hash_token, new_seed, new_token,
)
from services.errors import (
    InvalidSeat, KeyRequired, MissingScope, SeedNotAllowed, TicketExists, TicketNotFound,
    TicketNotWaiting,
)
from services.handlers.players import named
from services.handlers.quotas import allowance, within_quota
from services.handlers.ratings import initial, pool_of
from services.handlers.followups import follow_ups
from services.ports import Secrets, UnitOfWork

WINDOW = 5.0  # ordinal points between two players who have just come
WIDEN_PER_S = 0.5  # and more for each second the nearer one to its own has waited
WAIT_AT_MOST_S = 600.0
SCAN = 2000  # waiting tickets a matching looks at, oldest first


def open_ticket(cmd: OpenTicket, uow: UnitOfWork, caller: Caller, engines: tuple[str, ...],
                policy: RatingPolicy, now: datetime | None = None) -> Ticket:
    player = named(cmd.player, None, caller)
    if player is None or caller.key is None:
        raise KeyRequired("matchmaking is for a key's players: send the key")
    if cmd.seed is not None:
        raise SeedNotAllowed("a matchmade table seats others: the service draws its deal")
    if not caller.may("games:create-human"):
        raise MissingScope("this key may not make games: it needs games:create-human")
    if cmd.fill not in engines:
        raise InvalidSeat(f"fill is an AI engine among {', '.join(engines)}")
    rules = Rules.preset(cmd.preset, players=cmd.players)  # InvalidRules: what is wrong
    now = now or datetime.now(timezone.utc)
    pool = pool_of(cmd.preset, rules.players, policy)
    with uow:  # a ticket waiting counts as the game it becomes, which may seat AI
        within_quota(uow, allowance(caller), True, pending=uow.tickets.live(player.key))
        held = uow.ratings.get(pool, [PlayerRef(player.key, player.id)])
        rating = held.get(PlayerRef(player.key, player.id)) or initial()
        ticket = Ticket(
            id=uuid.uuid4().hex,
            owner=player.key,
            player=player.id,
            preset=cmd.preset,
            players=rules.players,
            pool=pool,
            ordinal=rating.ordinal,
            fill=cmd.fill,
            created_at=now,
            expires_at=now + timedelta(seconds=min(cmd.wait_s, WAIT_AT_MOST_S)),
            max_active_games=caller.max_active_games,
            ai_seconds_per_hour=caller.ai_seconds_per_hour,
        )
        if not uow.tickets.add(ticket):
            raise TicketExists(f"player {player.id!r} is waiting for a table already")
        uow.players.name(player.key, player.id, None)
        uow.commit()
    return ticket


def read_ticket(ticket_id: str, uow: UnitOfWork, caller: Caller, vault: Secrets
                ) -> tuple[Ticket, str | None]:
    """The ticket, and its seat's token the first time it is read once matched."""
    owner = _owner(caller)
    with uow:
        ticket = uow.tickets.get(owner, ticket_id)
        if ticket is None:
            raise TicketNotFound(f"no ticket {ticket_id!r} for this key")
        sealed = uow.tickets.take_token(owner, ticket_id) if ticket.state == "matched" else None
        uow.commit()
    return ticket, None if sealed is None else vault.open(sealed)


def wait_for_ticket(ticket_id: str, wait_s: float, uow_factory: Callable[[], UnitOfWork],
                    caller: Caller, vault: Secrets, give_up: Callable[[], bool] = lambda: False,
                    poll_s: float = 0.2) -> tuple[Ticket, str | None]:
    """``read_ticket``, waiting up to ``wait_s`` for it to be matched (long polling)."""
    ends = time.monotonic() + wait_s
    while True:
        ticket, token = read_ticket(ticket_id, uow_factory(), caller, vault)
        if ticket.state != "waiting" or time.monotonic() >= ends or give_up():
            return ticket, token
        time.sleep(min(poll_s, max(0.0, ends - time.monotonic())))


def cancel_ticket(ticket_id: str, uow: UnitOfWork, caller: Caller) -> Ticket:
    owner = _owner(caller)
    with uow:
        ticket = uow.tickets.get(owner, ticket_id)
        if ticket is None:
            raise TicketNotFound(f"no ticket {ticket_id!r} for this key")
        if not uow.tickets.cancel(owner, ticket_id):
            raise TicketNotWaiting(f"the ticket is {ticket.state}")
        uow.commit()
        found = uow.tickets.get(owner, ticket_id)
    assert found is not None
    return found


def match(uow: UnitOfWork, vault: Secrets, defaults: TableDefaults = TableDefaults(),
          now: datetime | None = None) -> int:
    """Seat the waiting tickets that can be seated now; how many games were made (none
    if a ticket was cancelled meanwhile: the next matching seats the others)."""
    now = now or datetime.now(timezone.utc)
    with uow:
        tables = tables_of(uow.tickets.waiting(SCAN), now)
        for tickets in tables:
            if not _seat(uow, tickets, vault, defaults):
                return 0  # (rolled back as the unit of work ends)
        uow.commit()
    return len(tables)


def tables_of(waiting: list[Ticket], now: datetime) -> list[list[Ticket]]:
    """Tables from ``waiting`` (oldest first): the oldest ticket with the nearest others
    of its key, preset and size that it and they accept; or, once its wait is over, with
    as many as there are (the rest of its seats go to the AI)."""
    groups: dict[tuple[str, str, int], list[Ticket]] = defaultdict(list)
    for ticket in waiting:
        groups[(ticket.owner, ticket.preset, ticket.players)].append(ticket)
    tables = []
    for group in groups.values():
        while group:
            first = group[0]
            mates = sorted((t for t in group[1:] if _close(first, t, now)),
                           key=lambda t: abs(t.ordinal - first.ordinal))
            table = [first, *mates[:first.players - 1]]
            if len(table) == first.players or first.expires_at <= now:
                tables.append(table)
                group = [t for t in group if t not in table]
            else:
                group = group[1:]  # it waits on; the next may find its table
    return tables


def _close(a: Ticket, b: Ticket, now: datetime) -> bool:
    """Each accepts the other: within the window of the one who has waited least."""
    waited = min((now - a.created_at).total_seconds(), (now - b.created_at).total_seconds())
    return abs(a.ordinal - b.ordinal) <= WINDOW + WIDEN_PER_S * max(0.0, waited)


def _seat(uow: UnitOfWork, tickets: list[Ticket], vault: Secrets,
          defaults: TableDefaults) -> bool:
    """The game of ``tickets`` (in random seats; the AI level of the oldest in the rest),
    and each ticket matched with its seat and token; False if one was cancelled."""
    first = tickets[0]
    places = random.sample(range(first.players), len(tickets))
    tokens = {place: new_token() for place in places}
    by_place = dict(zip(places, tickets))
    seats = tuple(
        Seat(
            seat=n,
            kind="human",
            engine=None,
            token_hash=hash_token(tokens[n]),
            player=by_place[n].player,
            name=None,
            host=False,
            player_key=by_place[n].owner,
        )
        if n in by_place
        else Seat(n, "ai", first.fill)
        for n in range(first.players)
    )
    state, events = new_series_with_events(Rules.preset(first.preset, players=first.players),
                                           new_seed())
    game = Game(uuid.uuid4().hex, first.preset, seats, state, pace_ms=defaults.pace_ms,
                turn_timeout_ms=defaults.turn_timeout_ms, owner=first.owner,
                ai_seconds_per_hour=first.ai_seconds_per_hour,
                table=Table("playing", "private"), max_active_games=first.max_active_games)
    then = follow_ups(game, events, 0)
    uow.games.add(game, events, then.message, then.hooks)
    return all(uow.tickets.matched(ticket.id, game.id, place, vault.seal(tokens[place]))
               for place, ticket in by_place.items())


def _owner(caller: Caller) -> str:
    if caller.key is None:
        raise KeyRequired("matchmaking is for a key's players: send the key")
    return caller.key.id
