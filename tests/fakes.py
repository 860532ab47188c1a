"""Fakes of the service layer's ports (``services.ports``), so that handler tests run in
memory, without a database: a repository and unit of work that keep committed games in
dicts (a write is checked against the version read, as the real one is), an outbox, the
read side over them, and a ``TurnScheduler`` that plays nothing and writes down what it
is told."""

from __future__ import annotations

import copy
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from types import TracebackType
from typing import Any, Callable, Iterator, Sequence

from engine import Event, RoundStarted, State
from engine.state import LogEntry
from bootstrap import FALLBACK, decide_here
from services.handlers.outbox import relay
from services.runtime.inline import InlineScheduler
from services.domain import (
    Answer, ApiKey, AttemptRecord, Delivery, Game, GameSummary, Hook, Outcome, PlayedFor,
    PlayerRef, PoolSummary, RatedRound, Rating, Review, RoundToRate, ServiceEvent, Standing,
    Ticket, TurnMessage, Waiting, WebhookEndpoint,
)
from services.ports import StoredEvent, StoredState, VersionConflict


class Recorder:
    """A ``TurnScheduler`` that records its calls (and, apart, the resent turns': game,
    version)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.resent: list[tuple[str, int]] = []

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, resent: bool = False) -> None:
        self.calls.append(("ai", game_id, seat, version, engine, delay_s))
        self._note(game_id, version, resent)

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float,
                   resent: bool = False) -> None:
        self.calls.append(("human", game_id, seat, version, timeout_s))
        self._note(game_id, version, resent)

    def _note(self, game_id: str, version: int, resent: bool) -> None:
        if resent:
            self.resent.append((game_id, version))


@dataclass
class _Stored:
    game: Game  # as committed (never handed out: callers get copies)
    created_at: datetime
    updated_at: datetime
    deadline: datetime | None = None
    due_at: datetime | None = None
    actions: list[str] = field(default_factory=list)
    events: list[StoredEvent] = field(default_factory=list)
    invite: str | None = None  # its invite's hash
    rematch: str | None = None  # its rematch's id


class FakeDatabase:
    """What is committed, shared by every unit of work made on it; ``now`` is its clock."""

    def __init__(self, now: Callable[[], datetime] | None = None) -> None:
        self.games: dict[str, _Stored] = {}
        self.keys: dict[tuple[str, int, str], tuple[str, int]] = {}  # Idempotency-Keys
        self.keys_by_hash: dict[str, ApiKey] = {}  # client keys
        self.ai_time: dict[tuple[str, datetime], float] = {}  # (owner, hour): seconds
        self.outbox: list[TurnMessage] = []
        self.endpoints: dict[str, tuple[WebhookEndpoint, str]] = {}  # id: (endpoint, sealed)
        self.messages: dict[int, _Message] = {}
        self.attempts: list[AttemptRecord] = []
        self.players: dict[tuple[str, str], str | None] = {}  # (key, player): name
        self.seen: dict[tuple[str, int], datetime] = {}  # (game, seat): heard from then
        self.rating_queue: list[RoundToRate] = []  # rounds a move queued, oldest first
        self.rated: set[tuple[str, int]] = set()  # (game, round) rated once
        self.ratings: dict[tuple[str, PlayerRef], Rating] = {}  # (pool, player): latest
        self.rating_history: list[tuple[str, RatedRound]] = []  # (pool, round), oldest first
        self.tickets: dict[str, Ticket] = {}
        self.sealed_tokens: dict[str, str] = {}  # ticket id: its matched seat's sealed token
        self.reviews: dict[tuple[str, int], Review] = {}
        self.review_sent: dict[tuple[str, int], datetime] = {}  # last handed to a queue
        self.review_lease: dict[tuple[str, int], datetime] = {}  # a running one's lease end
        self.outbox_written: Callable[[], Any] = lambda: None  # after a commit that wrote to it
        self.now = now or (lambda: datetime.now(timezone.utc))
        self.commits = 0

    def uow(self) -> FakeUnitOfWork:
        return FakeUnitOfWork(self)

    def reads(self) -> FakeReads:
        return FakeReads(self)


class FakeRepository:
    def __init__(self, db: FakeDatabase) -> None:
        self._db = db
        self.pending: list[Callable[[], None]] = []  # writes, applied on commit

    def add(self, game: Game, events: Sequence[Event],
            message: TurnMessage | None = None, hooks: Sequence[Hook] = (),
            invite_hash: str | None = None) -> None:
        now = self._db.now()
        self._hook(game.owner, hooks, now)
        game.events = len(events)
        stored = _Stored(copy.copy(game), now, now, _deadline(game, now), _due(message, now),
                         events=[(n, game.version, e) for n, e in enumerate(events, 1)],
                         invite=invite_hash)
        self.pending.append(lambda: self._db.games.__setitem__(game.id, stored))
        self._send(message, now)

    def fresh(self, game_id: str) -> Game | None:
        return self.get(game_id)

    def reseat(self, game: Game, read_version: int, read_seated: int,
               events: Sequence[ServiceEvent], turn: bool = False,
               message: TurnMessage | None = None, hooks: Sequence[Hook] = ()) -> None:
        stored = self._db.games[game.id]
        if (stored.game.version, stored.game.seated) != (read_version, read_seated):
            raise VersionConflict(f"game {game.id} changed since version {read_version}")
        first, game.events, game.seated = game.events, game.events + len(events), read_seated + 1
        written, now = copy.copy(game), self._db.now()

        def write() -> None:
            stored.game, stored.updated_at = written, now
            if turn:
                stored.deadline, stored.due_at = _deadline(written, now), _due(message, now)
            stored.events += [(first + n, written.version, e) for n, e in enumerate(events, 1)]

        self.pending.append(write)
        self._send(message if turn else None, now)
        self._hook(game.owner, hooks, now)

    def _hook(self, owner: str | None, hooks: Sequence[Hook], now: datetime) -> None:
        def write() -> None:
            for endpoint, _ in list(self._db.endpoints.values()):
                for hook in hooks:
                    if endpoint.owner == owner and endpoint.enabled \
                            and hook.type in endpoint.event_types:
                        number = len(self._db.messages) + 1
                        self._db.messages[number] = _Message(
                            number, f"msg_{number}", endpoint.id, hook.type, hook.data, now, now)
        self.pending.append(write)

    def _send(self, message: TurnMessage | None, now: datetime) -> None:
        if message is not None:
            self.pending.append(lambda: self._db.outbox.append(replace(message, sent_at=now)))

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        stored = self._db.games.get(game_id)
        return None if stored is None else copy.copy(stored.game)

    def known(self, game_id: str, version: int) -> Game | None:
        game = self.get(game_id)
        return game if game is not None and game.version == version else None

    def save_actions(self, game: Game, read_version: int, entries: list[LogEntry],
                     events: Sequence[Event | PlayedFor],
                     key: tuple[int, str, str] | None = None,
                     message: TurnMessage | None = None, hooks: Sequence[Hook] = ()) -> None:
        stored = self._db.games[game.id]
        if (stored.game.version, stored.game.seated) != (read_version, game.seated):
            raise VersionConflict(f"game {game.id} moved on from version {read_version}")
        first, game.events = game.events, game.events + len(events)
        written, now = copy.copy(game), self._db.now()

        def write() -> None:
            stored.game, stored.updated_at = written, now
            stored.deadline, stored.due_at = _deadline(written, now), _due(message, now)
            stored.actions += [str(entry.action) for entry in entries]
            stored.events += [(first + n, written.version, e) for n, e in enumerate(events, 1)]
            if key is not None:
                seat, name, action = key
                self._db.keys[(game.id, seat, name)] = (action, written.version)

        self.pending.append(write)
        self._send(message, now)
        self._hook(game.owner, hooks, now)

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        return [e for e in self._db.games[game_id].events if e[0] > after][:limit]

    def actions(self, game_id: str) -> list[str]:
        return list(self._db.games[game_id].actions)

    def stored_state(self, game_id: str) -> StoredState | None:
        stored = self._db.games.get(game_id)
        return None if stored is None else StoredState(stored.game.version, stored.game.state)

    def remembered(self, game_id: str, seat: int, key: str) -> tuple[str, int] | None:
        return self._db.keys.get((game_id, seat, key))


class _OfGames:
    """A fake port over the games' rows, writing in the games' unit of work."""

    def __init__(self, games: FakeRepository) -> None:
        self._db, self.pending, self._send = games._db, games.pending, games._send


class FakeLobby(_OfGames):
    def touch(self, game_id: str, seat: int) -> None:
        now = self._db.now()
        self.pending.append(lambda: self._db.seen.__setitem__((game_id, seat), now))

    def gone_quiet(self, after_s: float, limit: int = 500) -> list[tuple[str, int]]:
        cutoff = self._db.now() - timedelta(seconds=after_s)
        return [(game_id, s.seat) for game_id, stored in self._db.games.items()
                for s in stored.game.seats
                if s.connected and self._db.seen.get((game_id, s.seat), cutoff) < cutoff][:limit]

    def set_invite(self, game_id: str, invite_hash: str | None) -> None:
        self.pending.append(lambda: setattr(self._db.games[game_id], "invite", invite_hash))

    def by_invite(self, invite_hash: str) -> str | None:
        return next((s.game.id for s in self._db.games.values() if s.invite == invite_hash),
                    None)

    def rematch_of(self, game_id: str) -> str | None:
        return self._db.games[game_id].rematch

    def set_rematch(self, game_id: str, rematch_id: str) -> bool:
        stored = self._db.games[game_id]
        if stored.rematch is not None:
            return False
        self.pending.append(lambda: setattr(stored, "rematch", rematch_id))
        return True



class FakeTurns(_OfGames):
    def waiting(self, kind: str, since: datetime, limit: int = 500) -> list[Waiting]:
        return [w for w, s in self._waiting(kind) if s.updated_at < since][:limit]

    def stalled(self, after_s: float, limit: int = 500) -> list[Waiting]:
        cutoff = self._db.now() - timedelta(seconds=after_s)
        return [w for w, s in self._waiting(None)
                if s.due_at is not None and s.due_at < cutoff][:limit]

    def send_again(self, waiting: Waiting) -> bool:
        stored, now = self._db.games[waiting.game_id], self._db.now()
        if stored.game.version != waiting.version:
            return False
        self.pending.append(lambda: setattr(stored, "due_at", now))
        self._send(TurnMessage(waiting.game_id, waiting.version, waiting.seat, waiting.engine,
                               0.0, resent=True), now)
        return True

    def postpone(self, waiting: Waiting, delay_s: float) -> bool:
        stored, due = self._db.games[waiting.game_id], self._db.now() + timedelta(seconds=delay_s)
        if stored.game.version != waiting.version:
            return False
        self.pending.append(lambda: setattr(stored, "due_at", due))
        return True

    def _waiting(self, kind: str | None) -> list[tuple[Waiting, _Stored]]:
        found = []
        for stored in sorted(self._db.games.values(), key=lambda s: s.updated_at):
            seat = stored.game.seat_to_act
            if seat is not None and kind in (None, seat.kind):
                found.append((Waiting(stored.game.id, stored.game.version, seat.seat,
                                      seat.engine), stored))
        return found

    def out_of_time(self, game_id: str) -> bool:
        deadline = self._db.games[game_id].deadline
        return deadline is not None and self._db.now() >= deadline



class FakeListing(_OfGames):
    def page(self, owner: str | None, status: str | None, limit: int,
             before: tuple[datetime, str] | None) -> list[GameSummary]:
        games = sorted(self._db.games.values(), key=lambda s: (s.created_at, s.game.id),
                       reverse=True)
        return [GameSummary(s.game.id, s.game.status, s.game.preset, s.game.version,
                            s.created_at, s.game.seats) for s in games
                if s.game.owner == owner and (status is None or s.game.status == status)
                and (before is None or (s.created_at, s.game.id) < before)][:limit]

    def ids(self) -> list[str]:
        return [s.game.id for s in sorted(self._db.games.values(), key=lambda s: s.created_at)]




    def finished(self, owner: str, since: datetime | None,
                 after: tuple[str, datetime] | None, limit: int) -> list[tuple[str, datetime]]:
        done = sorted(((s.updated_at, s.game.id) for s in self._db.games.values()
                       if s.game.status == "over" and s.game.owner == owner
                       and (since is None or s.updated_at >= since)))
        return [(game_id, at) for at, game_id in done
                if after is None or (at, game_id) > (after[1], after[0])][:limit]


class FakeQuotas(_OfGames):
    def add_ai_time(self, owner: str, hour: datetime, seconds: float) -> None:
        self.pending.append(lambda: self._db.ai_time.__setitem__(
            (owner, hour), self._db.ai_time.get((owner, hour), 0.0) + seconds))

    def ai_time_since(self, owner: str, since: datetime) -> float:
        return sum(t for (o, hour), t in self._db.ai_time.items() if o == owner and hour >= since)

    def active_count(self, owner: str | None) -> int:
        return sum(s.game.owner == owner and s.game.status in ("active", "waiting")
                   for s in self._db.games.values())



class FakePlayers:
    def __init__(self, db: FakeDatabase, pending: list[Callable[[], None]]) -> None:
        self._db, self._pending = db, pending

    def name(self, key: str, player: str, name: str | None) -> None:
        def write() -> None:
            held = self._db.players.get((key, player))
            self._db.players[(key, player)] = name if name is not None else held

        self._pending.append(write)

    def exists(self, key: str, player: str) -> bool:
        return (key, player) in self._db.players

    def games(self, key: str, player: str, status: str | None, limit: int,
              before: tuple[datetime, str] | None) -> list[GameSummary]:
        games = sorted(self._db.games.values(), key=lambda s: (s.created_at, s.game.id),
                       reverse=True)
        return [GameSummary(s.game.id, s.game.status, s.game.preset, s.game.version,
                            s.created_at, s.game.seats) for s in games
                if s.game.owner == key
                and any(x.player == player and x.player_key == key for x in s.game.seats)
                and (status is None or s.game.status == status)
                and (before is None or (s.created_at, s.game.id) < before)][:limit]


class FakeKeyRepository:
    def __init__(self, db: FakeDatabase, pending: list[Callable[[], None]]) -> None:
        self._db, self._pending = db, pending

    def add(self, key: ApiKey, secret_hash: str) -> None:
        self._pending.append(lambda: self._db.keys_by_hash.__setitem__(secret_hash, key))

    def by_hash(self, secret_hash: str) -> ApiKey | None:
        return self._db.keys_by_hash.get(secret_hash)

    def all(self) -> list[ApiKey]:
        return list(self._db.keys_by_hash.values())

    def revoke(self, key_id: str, when: datetime) -> bool:
        found = [h for h, k in self._db.keys_by_hash.items() if k.id == key_id]
        for secret_hash in found:
            key = self._db.keys_by_hash[secret_hash]
            self._pending.append(lambda h=secret_hash, k=key: self._db.keys_by_hash.__setitem__(
                h, replace(k, revoked=True)))
        return bool(found)


class FakeOutbox:
    def __init__(self, db: FakeDatabase, pending: list[Callable[[], None]]) -> None:
        self._db, self._pending = db, pending

    def claim(self, limit: int) -> list[TurnMessage]:
        claimed = self._db.outbox[:limit]
        self._pending.append(lambda: self._db.outbox.__delitem__(slice(0, len(claimed))))
        return claimed

    def put_back(self, messages: Sequence[TurnMessage]) -> None:
        self._pending.append(lambda: self._db.outbox.extend(messages))


@dataclass
class _Message:
    id: int
    webhook_id: str
    endpoint_id: str
    type: str
    data: dict[str, object]
    created_at: datetime
    due_at: datetime
    state: str = "pending"
    hand: int = 0
    attempts: int = 0


class FakeWebhooks:
    """The ``WebhookRepository`` in memory: writes wait for the commit; claims and starts
    take effect at once (one test thread)."""

    def __init__(self, db: FakeDatabase, pending: list[Callable[[], None]]) -> None:
        self._db, self._pending = db, pending

    def add(self, endpoint: WebhookEndpoint, sealed_secret: str) -> None:
        made = replace(endpoint, created_at=self._db.now())
        self._pending.append(lambda: self._db.endpoints.__setitem__(
            endpoint.id, (made, sealed_secret)))

    def get(self, owner: str, endpoint_id: str) -> WebhookEndpoint | None:
        found = self._db.endpoints.get(endpoint_id)
        return None if found is None or found[0].owner != owner else found[0]

    def all(self, owner: str) -> list[WebhookEndpoint]:
        return [e for e, _ in self._db.endpoints.values() if e.owner == owner]

    def count(self, owner: str) -> int:
        return len(self.all(owner))

    def update(self, endpoint: WebhookEndpoint, sealed_secret: str | None = None) -> None:
        old, sealed = self._db.endpoints[endpoint.id]
        if endpoint.enabled and not old.enabled:
            endpoint = replace(endpoint, disabled_reason=None, failing_since=None)
        self._pending.append(lambda: self._db.endpoints.__setitem__(
            endpoint.id, (endpoint, sealed_secret or sealed)))

    def delete(self, owner: str, endpoint_id: str) -> bool:
        if self.get(owner, endpoint_id) is None:
            return False
        self._pending.append(lambda: self._db.endpoints.pop(endpoint_id))
        return True

    def claim_due(self, limit: int, lease_s: float) -> list[tuple[int, int]]:
        now = self._db.now()
        due = sorted((m for m in self._db.messages.values()
                      if m.state == "pending" and m.due_at <= now),
                     key=lambda m: m.due_at)[:limit]
        for m in due:
            m.hand, m.due_at = m.hand + 1, now + timedelta(seconds=lease_s)
        return [(m.id, m.hand) for m in due]

    def put_back(self, claimed: Sequence[tuple[int, int]]) -> None:
        for message_id, _ in claimed:
            self._db.messages[message_id].due_at = self._db.now()

    def start(self, message_id: int, hand: int, lease_s: float) -> Delivery | None:
        m, now = self._db.messages.get(message_id), self._db.now()
        if m is None or m.hand not in (hand - 1, hand) or m.state != "pending":
            return None
        m.hand, m.attempts, m.due_at = hand + 1, m.attempts + 1, now + timedelta(seconds=lease_s)
        endpoint, sealed = self._db.endpoints[m.endpoint_id]
        if not endpoint.enabled:
            m.state = "failed"
            return None
        return Delivery(m.id, m.webhook_id, m.type, m.data, m.created_at, m.attempts,
                        endpoint, sealed, now)

    def failing_since(self, endpoint_id: str) -> datetime | None:
        found = self._db.endpoints.get(endpoint_id)
        return None if found is None else found[0].failing_since

    def finish(self, delivery: Delivery, answer: Answer, outcome: Outcome) -> None:
        m, now = self._db.messages[delivery.message_id], self._db.now()
        self._db.attempts.append(AttemptRecord(
            len(self._db.attempts) + 1, m.webhook_id, m.type, delivery.now,
            answer.status_code, answer.latency_ms, answer.error, outcome.state))
        if m.state == "pending":
            m.state = outcome.state
            if outcome.retry_in_s is not None:
                m.due_at = now + timedelta(seconds=outcome.retry_in_s)
        endpoint, sealed = self._db.endpoints[m.endpoint_id]
        endpoint = replace(endpoint, failing_since=outcome.failing_since)
        if outcome.disabled_reason is not None:
            endpoint = replace(endpoint, enabled=False, disabled_reason=outcome.disabled_reason)
            for other in self._db.messages.values():
                if other.endpoint_id == endpoint.id and other.state == "pending":
                    other.state = "failed"
        self._db.endpoints[endpoint.id] = (endpoint, sealed)

    def attempts(self, endpoint_id: str, limit: int, before: int | None
                 ) -> list[AttemptRecord]:
        ids = {m.webhook_id for m in self._db.messages.values() if m.endpoint_id == endpoint_id}
        found = [a for a in reversed(self._db.attempts) if a.webhook_id in ids
                 and (before is None or a.id < before)]
        return found[:limit]

    def prune(self, older_than_s: float) -> int:
        cutoff = self._db.now() - timedelta(seconds=older_than_s)
        old = [i for i, m in self._db.messages.items()
               if m.state != "pending" and m.created_at < cutoff]
        for i in old:
            del self._db.messages[i]
        return len(old)


class FakeRatings:
    """Ratings, their queue and history in the fake database (one rater: no lock)."""

    def __init__(self, db: FakeDatabase, games: FakeRepository) -> None:
        self._db, self._games = db, games

    def claim(self, limit: int) -> list[RoundToRate]:
        claimed = self._db.rating_queue[:limit]
        self._games.pending.append(lambda: self._db.rating_queue.__delitem__(
            slice(0, len(claimed))))
        return list(claimed)

    def pending(self) -> bool:
        return bool(self._db.rating_queue)

    def mark_rated(self, rounds: Sequence[tuple[str, int, str]]) -> set[tuple[str, int]]:
        fresh = {(g, n) for g, n, _ in rounds} - self._db.rated
        self._games.pending.append(lambda: self._db.rated.update(fresh))
        return set(fresh)  # (the caller's to change)

    def get(self, pool: str, refs: Sequence[PlayerRef]) -> dict[PlayerRef, Rating]:
        return {r: self._db.ratings[(pool, r)] for r in refs if (pool, r) in self._db.ratings}

    def save(self, rounds: Sequence[tuple[str, RatedRound]],
             latest: dict[tuple[str, PlayerRef], Rating], hooks: dict[str, list[Hook]]
             ) -> None:
        def write() -> None:
            self._db.rating_history.extend(rounds)
            self._db.ratings.update(latest)

        self._games.pending.append(write)
        for owner, owned in hooks.items():
            self._games._hook(owner, owned, self._db.now())

    def board(self, pool: str, owner: str, min_rounds: int, limit: int,
              after: tuple[float, str, str, int] | None) -> list[Standing]:
        ranked = self._ranked(pool, owner, min_rounds)
        start = 0 if after is None else next(
            (i for i, s in enumerate(ranked)
             if (-s.rating.ordinal, s.ref.owner, s.ref.player) > (-after[0], after[1], after[2])),
            len(ranked))
        return ranked[start:start + limit]

    def around(self, pool: str, owner: str, ref: PlayerRef, min_rounds: int,
               count: int) -> list[Standing]:
        ranked = self._ranked(pool, owner, min_rounds)
        at = next((i for i, s in enumerate(ranked) if s.ref == ref), None)
        return [] if at is None else ranked[max(0, at - count):at + count + 1]

    def history(self, owner: str, player: str, limit: int) -> list[tuple[str, RatedRound]]:
        return [(pool, r) for pool, r in reversed(self._db.rating_history)
                if r.ref == PlayerRef(owner, player)][:limit]

    def summaries(self, owner: str, player: str) -> list[PoolSummary]:
        ref, found = PlayerRef(owner, player), []
        for (pool, held), rating in sorted(self._db.ratings.items()):
            if held != ref:
                continue
            rounds = [r for p, r in self._db.rating_history if p == pool and r.ref == ref]
            found.append(PoolSummary(pool, rating, len({r.game_id for r in rounds}),
                                     sum(r.role == "president" for r in rounds),
                                     sum(r.role == "trou" for r in rounds),
                                     sum(r.points for r in rounds)))
        return found

    def _ranked(self, pool: str, owner: str, min_rounds: int) -> list[Standing]:
        held = sorted(((r, rating) for (p, r), rating in self._db.ratings.items()
                       if p == pool and r.owner == owner and rating.rounds >= min_rounds),
                      key=lambda x: (-x[1].ordinal, x[0].owner, x[0].player))
        return [Standing(rank, ref, rating) for rank, (ref, rating) in enumerate(held, 1)]


class FakeTickets:
    """Matchmaking tickets in the fake database."""

    def __init__(self, db: FakeDatabase, pending: list[Callable[[], None]]) -> None:
        self._db, self._pending = db, pending

    def add(self, ticket: Ticket) -> bool:
        if any(t.owner == ticket.owner and t.player == ticket.player and t.state == "waiting"
               for t in self._db.tickets.values()):
            return False
        self._pending.append(lambda: self._db.tickets.__setitem__(ticket.id, ticket))
        return True

    def get(self, owner: str, ticket_id: str) -> Ticket | None:
        found = self._db.tickets.get(ticket_id)
        return found if found is not None and found.owner == owner else None

    def live(self, owner: str) -> int:
        return sum(t.owner == owner and t.state == "waiting" for t in self._db.tickets.values())

    def waiting(self, limit: int) -> list[Ticket]:
        return sorted((t for t in self._db.tickets.values() if t.state == "waiting"),
                      key=lambda t: (t.created_at, t.id))[:limit]

    def matched(self, ticket_id: str, game_id: str, seat: int, sealed_token: str) -> bool:
        found = self._db.tickets.get(ticket_id)
        if found is None or found.state != "waiting":
            return False

        def write() -> None:
            self._db.tickets[ticket_id] = replace(found, state="matched", game_id=game_id,
                                                  seat=seat)
            self._db.sealed_tokens[ticket_id] = sealed_token

        self._pending.append(write)
        return True

    def cancel(self, owner: str, ticket_id: str) -> bool:
        found = self.get(owner, ticket_id)
        if found is None or found.state != "waiting":
            return False
        self._pending.append(lambda: self._db.tickets.__setitem__(
            ticket_id, replace(found, state="cancelled")))
        return True

    def take_token(self, owner: str, ticket_id: str) -> str | None:
        if self.get(owner, ticket_id) is None:
            return None
        sealed = self._db.sealed_tokens.get(ticket_id)
        self._pending.append(lambda: self._db.sealed_tokens.pop(ticket_id, None))
        return sealed

    def pending(self) -> bool:
        return any(t.state == "waiting" for t in self._db.tickets.values())


class FakeReviews:
    """Round reviews in the fake database; leases by its clock."""

    def __init__(self, db: FakeDatabase, pending: list[Callable[[], None]]) -> None:
        self._db, self._pending = db, pending

    def add(self, review: Review) -> bool:
        key = (review.game_id, review.round_no)
        if key in self._db.reviews:
            return False
        now = self._db.now()

        def write() -> None:
            self._db.reviews[key] = replace(review, requested_at=now)
            self._db.review_sent[key] = now

        self._pending.append(write)
        return True

    def get(self, game_id: str, round_no: int) -> Review | None:
        return self._db.reviews.get((game_id, round_no))

    def claim(self, game_id: str, round_no: int | None, lease_s: float) -> Review | None:
        free = sorted((r for k, r in self._db.reviews.items() if self._free(k)),
                      key=lambda r: r.requested_at)
        if round_no is not None:
            free = [r for r in free if (r.game_id, r.round_no) == (game_id, round_no)]
        if not free:
            return None
        claimed = replace(free[0], state="running", attempts=free[0].attempts + 1, done=0)
        key, until = (claimed.game_id, claimed.round_no), self._db.now() + timedelta(
            seconds=lease_s)

        def write() -> None:
            self._db.reviews[key] = claimed
            self._db.review_lease[key] = until

        self._pending.append(write)
        return claimed

    def progress(self, game_id: str, round_no: int, done: int, lease_s: float) -> None:
        key, until = (game_id, round_no), self._db.now() + timedelta(seconds=lease_s)

        def write() -> None:
            held = self._db.reviews.get(key)
            if held is not None and held.state == "running":
                self._db.reviews[key] = replace(held, done=done)
                self._db.review_lease[key] = until

        self._pending.append(write)

    def finish(self, review: Review) -> bool:
        key = (review.game_id, review.round_no)
        held = self._db.reviews.get(key)
        if held is None or held.state != "running":
            return False
        now = self._db.now()
        self._pending.append(lambda: self._db.reviews.__setitem__(
            key, replace(review, finished_at=now, requested_at=held.requested_at)))
        return True

    def send_again(self, after_s: float, limit: int) -> list[tuple[str, int]]:
        now = self._db.now()
        stale = [k for k, r in sorted(self._db.reviews.items(),
                                      key=lambda kr: kr[1].requested_at)
                 if self._free(k) and self._db.review_sent[k] < now - timedelta(seconds=after_s)
                 ][:limit]
        self._pending.append(lambda: self._db.review_sent.update({k: now for k in stale}))
        return stale

    def queued(self, owner: str | None) -> int:
        return sum(r.owner == owner and r.state in ("queued", "running")
                   for r in self._db.reviews.values())

    def _free(self, key: tuple[str, int]) -> bool:
        review = self._db.reviews[key]
        return review.state == "queued" or (
            review.state == "running" and self._db.review_lease[key] < self._db.now())


class PlainVault:
    """The ``Secrets`` port, marking what it sealed (the fakes need no cipher)."""

    def seal(self, secret: str) -> str:
        return "sealed:" + secret

    def open(self, sealed: str) -> str:
        return sealed.removeprefix("sealed:")


class FakeUnitOfWork:
    """Writes wait for ``commit``; leaving the block without it drops them."""

    def __init__(self, db: FakeDatabase) -> None:
        self._db = db
        self.games = FakeRepository(db)
        self.lobby = FakeLobby(self.games)
        self.turns = FakeTurns(self.games)
        self.listing = FakeListing(self.games)
        self.quotas = FakeQuotas(self.games)
        self.keys = FakeKeyRepository(db, self.games.pending)
        self.outbox = FakeOutbox(db, self.games.pending)
        self.webhooks = FakeWebhooks(db, self.games.pending)
        self.players = FakePlayers(db, self.games.pending)
        self.ratings = FakeRatings(db, self.games)
        self.tickets = FakeTickets(db, self.games.pending)
        self.reviews = FakeReviews(db, self.games.pending)

    def __enter__(self) -> FakeUnitOfWork:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.rollback()

    def commit(self) -> None:
        outbox = len(self._db.outbox)
        for write in self.games.pending:
            write()
        self.games.pending.clear()
        self._db.commits += 1
        if len(self._db.outbox) > outbox:
            self._db.outbox_written()

    def rollback(self) -> None:
        self.games.pending.clear()


class FakeReads:
    def __init__(self, db: FakeDatabase) -> None:
        self._repository = FakeRepository(db)
        self.waits: list[float] = []

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        return self._repository.get(game_id, at_least)

    def fresh(self, game_id: str) -> Game | None:
        return self._repository.get(game_id)

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        return self._repository.events_after(game_id, after, limit)

    def events_of_round(self, game_id: str, round_no: int) -> list[StoredEvent]:
        rows, current = [], 1  # what the store's event rounds say
        for seq, version, event in self._repository.events_after(game_id, 0, 10**9):
            current = event.round_no if isinstance(event, RoundStarted) else current
            if current == round_no:
                rows.append((seq, version, event))
        return rows

    @contextmanager
    def watching(self, game_id: str) -> Iterator[Callable[[float], None]]:
        def wait(at_most_s: float) -> None:  # no move comes while a handler waits here
            self.waits.append(at_most_s)
            time.sleep(min(at_most_s, 0.01))

        yield wait


def _deadline(game: Game, moved_at: datetime) -> datetime | None:
    seat = game.seat_to_act
    if seat is None or seat.kind != "human" or game.turn_timeout_ms is None:
        return None
    return moved_at + timedelta(milliseconds=game.turn_timeout_ms)


def _due(message: TurnMessage | None, at: datetime) -> datetime | None:
    return None if message is None else at + timedelta(seconds=message.delay_s)


def play_inline(db: FakeDatabase) -> InlineScheduler:
    """AI seats of ``db``'s games played at once, as each commit's outbox is relayed."""
    scheduler = InlineScheduler(db.uow, decide_here, FALLBACK)
    db.outbox_written = lambda: (relay_all(db, scheduler), scheduler.play_queued())
    return scheduler


def relay_all(db: FakeDatabase, scheduler: Any) -> int:
    """Hand everything in ``db``'s outbox to ``scheduler``, as a relay does."""
    return relay(db.uow(), scheduler, limit=10**6)


class Told:
    """What a relay hands over from the outbox of ``uow_factory``'s database, as a
    ``Recorder``'s calls (reading ``calls`` relays what is waiting)."""

    def __init__(self, uow_factory: Callable[[], Any]) -> None:
        self._uow_factory = uow_factory
        self._recorder = Recorder()

    @property
    def calls(self) -> list[tuple[Any, ...]]:
        return self._relayed().calls

    @property
    def resent(self) -> list[tuple[str, int]]:
        return self._relayed().resent

    def _relayed(self) -> Recorder:
        relay(self._uow_factory(), self._recorder, limit=10**6)
        return self._recorder


def state_of(db: FakeDatabase, game_id: str) -> State:
    return db.games[game_id].game.state
