"""Games in and out of the database: the one place that maps rows to domain objects."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Callable, Iterator, Sequence, TypeVar, Unpack

from sqlalchemy import (
    ColumnElement, Row, Table, and_, bindparam, delete, insert, or_, select, text,
    update,
)
from sqlalchemy.orm import Session

from engine.events import Event, RoundEnded, RoundStarted
from engine.snapshot import event_to_dict
from engine.state import LogEntry
from services.domain import (
    SERVICE_EVENTS, ApiKey, Game, GameSummary, Hook, Seat, ServiceEvent, TurnMessage, rated_player,
)
from services.ports import StoredEvent, StoredState, VersionConflict
from services.store.models import (
    ActionRow, ApiKeyRow, Base, EventRow, GameRow, IdempotencyRow, OutboxRow,
    RatingQueueRow, SeatRow, utcnow,
)
from services.store.moves import Move, MoveBatches, delay_ms
from services.store.feed import CHANNEL, Notice
from services.store.outbox import OUTBOX_CHANNEL
from services.store.reads import GameReads
from services.store.snapshots import stored
from services.store.states import Known, seating_of
from services.store.timing import Moment, aware, clock
from services.store.webhooks import write_hooks


def _deadline_ms(game: Game) -> int | None:
    seat = game.seat_to_act
    if seat is None or seat.kind != "human" or game.turn_timeout_ms is None:
        return None
    return game.turn_timeout_ms


def _after(moment: Moment, ms: int | None) -> Moment | None:
    return None if ms is None else moment + timedelta(milliseconds=ms)


def _table(model: type[Base]) -> Table:
    """The model's table. ``__table__`` is typed as any FromClause (a model may map a
    join or a subquery), and Core's insert and update take a table: every model here
    maps one."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


# Writes are Core statements built once (building one costs about as much as running it;
# the ORM's bulk path several times more), run on the unit of work's connection.
_MOVE_ON = (
    update(_table(GameRow))
    .where(GameRow.id == bindparam("game_id"), GameRow.version == bindparam("read_version"),
           GameRow.seated == bindparam("read_seated"))
    .values(version=bindparam("new_version"), status=bindparam("new_status"),
            events=bindparam("new_events"), snapshot=bindparam("new_snapshot"),
            to_act=bindparam("new_to_act"), turn_deadline=bindparam("new_deadline"),
            turn_due_at=bindparam("new_due_at"), updated_at=bindparam("now")))
_ADD_ACTIONS = insert(_table(ActionRow))
_ADD_EVENTS = insert(_table(EventRow))
_ADD_MESSAGE = insert(_table(OutboxRow))
_WAKE_RELAY = text(f"SELECT pg_notify('{OUTBOX_CHANNEL}', '')")  # one notice per commit


def _message_row(message: TurnMessage, at: Moment) -> dict[str, object]:
    return {"game_id": message.game_id, "version": message.version, "seat": message.seat,
            "engine": message.engine, "delay_ms": delay_ms(message),
            "created_at": at, "trace": message.trace, "resent": message.resent}


E = TypeVar("E", bound="Event | ServiceEvent")


def _by_round(round_no: int, events: Sequence[E]) -> Iterator[tuple[int, E]]:
    """(round, event): an action's events are its round's, until a RoundStarted begins the
    next one (that event and those after it are the new round's)."""
    for event in events:
        if isinstance(event, RoundStarted):
            round_no = event.round_no
        yield round_no, event


class SqlGameRepository:
    """The ``GameRepository`` port on SQLAlchemy. Writes go through ``session`` (the unit
    of work's transaction), or on PostgreSQL as one statement of their own (``moves``,
    batched); reads, which need no transaction (every write is checked against the
    version read), through ``reads``' autocommit connections."""

    def __init__(self, session: Callable[[], Session], reads: GameReads,
                 moves: MoveBatches | None) -> None:
        self._session = session
        self.reads = reads
        self._moves = moves
        self._written: list[tuple[Game, int]] = []  # (game, feed mark before the write)
        self._reseated: list[tuple[Game, int]] = []  # (game, feed mark before the write)
        self.wrote_messages = False  # to the outbox: its relay is to be woken on commit

    @property
    def session(self) -> Session:
        return self._session()

    def add(self, game: Game, events: Sequence[Event],
            message: TurnMessage | None = None, hooks: Sequence[Hook] = (),
            invite_hash: str | None = None) -> None:
        now, clock = utcnow(), self._clock()
        self.session.add(GameRow(
            id=game.id, status=game.status, preset=game.preset,
            rules=game.state.rules.to_dict(), seed=game.state.seed, version=game.version,
            snapshot=stored(game.state), events=len(events),
            pace_ms=game.pace_ms, turn_timeout_ms=game.turn_timeout_ms, to_act=game.state.to_act,
            turn_deadline=_after(clock, _deadline_ms(game)),
            turn_due_at=_after(clock, delay_ms(message)),
            created_at=now, updated_at=now,
            owner=game.owner, ai_seconds_per_hour=game.ai_seconds_per_hour,
            seated=game.seated, visibility=game.table.visibility,
            takeover=game.table.takeover, invite_hash=invite_hash, hints=game.table.hints,
            seeded=game.table.seeded, max_active_games=game.max_active_games,
            seats=[_seat_row(s) for s in game.seats]))
        self.session.flush()  # the game row first: events refer to it
        self._add_events(game, events)
        game.events = len(events)
        if message is not None:
            self._add_message(message, clock)
        self._add_hooks(game.owner, hooks, clock)

    def _add_hooks(self, owner: str | None, hooks: Sequence[Hook], at: Moment) -> None:
        if write_hooks(self.session.connection(), owner, hooks, at):
            if isinstance(at, ColumnElement):
                self.session.connection().execute(_WAKE_RELAY)
            self.wrote_messages = True

    def _clock(self) -> Moment:
        return clock(self.session)

    @property
    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name

    def _add_message(self, message: TurnMessage, at: Moment) -> None:
        """(On PostgreSQL the moment is ``now()``: a statement of its own, and a notice
        to the relay that leads, delivered at commit.)"""
        connection = self.session.connection()
        if isinstance(at, ColumnElement):
            connection.execute(_ADD_MESSAGE.values(_message_row(message, at)))
            connection.execute(_WAKE_RELAY)
        else:
            connection.execute(_ADD_MESSAGE, _message_row(message, at))
        self.wrote_messages = True

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        return self.reads.get(game_id, at_least)

    def fresh(self, game_id: str) -> Game | None:
        """The game with its seats as the database has them now (none held here)."""
        return self.reads.fresh(game_id)

    def reseat(self, game: Game, read_version: int, read_seated: int,
               events: Sequence[ServiceEvent], turn: bool = False,
               message: TurnMessage | None = None, hooks: Sequence[Hook] = ()) -> None:
        """Store ``game``'s seats and status as they are now (one more seat change), with
        ``events`` and ``hooks``, if and only if nobody wrote since ``read_version`` and
        ``read_seated`` (else ``VersionConflict``); on PostgreSQL, announced at commit
        like a move. ``turn``: the turn starts again (the game started, or the seat to
        act changed hands), with ``message``; else its time limit and message stand."""
        connection, at, seen_at = self.session.connection(), self._clock(), self.reads.mark()
        first_event, game.events = game.events, game.events + len(events)
        game.seated = read_seated + 1
        timing = {} if not turn else {
            "to_act": game.state.to_act, "turn_deadline": _after(at, _deadline_ms(game)),
            "turn_due_at": _after(at, delay_ms(message))}
        done = connection.execute(
            update(_table(GameRow))
            .where(GameRow.id == game.id, GameRow.version == read_version,
                   GameRow.seated == read_seated)
            .values(seated=game.seated, status=game.status, events=game.events,
                    updated_at=at, **timing))
        if done.rowcount != 1:
            raise VersionConflict(f"game {game.id} changed since version {read_version}, "
                                  f"seat change {read_seated}")
        for seat in game.seats:  # (a handful: one statement each is simplest)
            connection.execute(update(_table(SeatRow))
                               .where(SeatRow.game_id == game.id, SeatRow.seat == seat.seat)
                               .values(**_seat_values(seat)))
        if events:
            connection.execute(_ADD_EVENTS, [
                {"game_id": game.id, "seq": first_event + offset, "version": game.version,
                 "round": game.state.round_no, "payload": event.to_dict()}
                for offset, event in enumerate(events, start=1)])
        if turn and message is not None:
            self._add_message(message, at)
        self._add_hooks(game.owner, hooks, at)
        self._written.append((game, seen_at))
        self._reseated.append((game, seen_at))
        if self._dialect == "postgresql":
            notice = Notice(game.id, game.version, game.version, game.events, ())
            connection.execute(text(f"SELECT pg_notify('{CHANNEL}', :notice)"),
                               {"notice": notice.payload()})

    def known(self, game_id: str, version: int) -> Game | None:
        """The game as this process last saw it, if at ``version`` (no database read)."""
        return self.reads.states.game(game_id, version)

    def save_actions(self, game: Game, read_version: int, entries: list[LogEntry],
                     events: Sequence[Event | ServiceEvent],
                     key: tuple[int, str, str] | None = None,
                     message: TurnMessage | None = None, hooks: Sequence[Hook] = ()) -> None:
        """Append ``entries`` to the log and ``events`` to the game's events, store the
        new snapshot, remember the Idempotency-Key ``key`` (seat, key, action text),
        write ``message`` to the outbox and ``hooks`` for the owner's webhook endpoints,
        if and only if nobody else wrote since ``read_version``."""
        first_event = game.events
        game.events += len(events)
        now = utcnow()
        seen_at = self.reads.mark()  # before the write: the feed vouches from here
        move = Move(
            game_id=game.id, read_version=read_version, seated=game.seated,
            version=game.version, status=game.status, events=game.events,
            snapshot=stored(game.state), to_act=game.state.to_act,
            deadline_ms=_deadline_ms(game), now=now,
            actions=[{"seq": read_version + offset, "round": entry.round_no,
                      "seat": entry.seat, "action": str(entry.action)}
                     for offset, entry in enumerate(entries, start=1)],
            new_events=[{"seq": first_event + offset, "round": round_no,
                         "payload": (e.to_dict() if isinstance(e, SERVICE_EVENTS)
                                     else event_to_dict(e))}
                        for offset, (round_no, e) in enumerate(
                            _by_round(entries[0].round_no if entries else 1, events), start=1)],
            key=key, message=message, owner=game.owner, hooks=hooks,
            rate_rounds=_rounds_ended(game, events))
        if self._moves is not None:
            done = self._moves.write(move)
        else:
            done = self._move_in_transaction(move)
        if not done:
            raise VersionConflict(f"game {game.id} moved on from version {read_version}")
        self._written.append((game, seen_at))
        # (on PostgreSQL the statement's own notice wakes the relay that leads)
        self.wrote_messages = self.wrote_messages or message is not None

    def _move_in_transaction(self, move: Move) -> bool:
        connection = self.session.connection()
        done = connection.execute(_MOVE_ON, {
            "game_id": move.game_id, "read_version": move.read_version,
            "read_seated": move.seated, "new_version": move.version, "new_status": move.status,
            "new_events": move.events, "new_snapshot": move.snapshot,
            "new_to_act": move.to_act, "new_deadline": _after(move.now, move.deadline_ms),
            "new_due_at": _after(move.now, delay_ms(move.message)),
            "now": move.now})
        if done.rowcount != 1:
            return False
        connection.execute(_ADD_ACTIONS, [{"game_id": move.game_id, "created_at": move.now,
                                           **a} for a in move.actions])
        if move.new_events:
            connection.execute(_ADD_EVENTS, [{"game_id": move.game_id, "version": move.version,
                                              **e} for e in move.new_events])
        if move.key is not None:
            seat, key, action = move.key
            self.session.add(IdempotencyRow(game_id=move.game_id, seat=seat, key=key,
                                            action=action, version=move.version))
        if move.message is not None:
            self._add_message(move.message, move.now)
        self._add_hooks(move.owner, move.hooks, move.now)
        if move.rate_rounds:
            connection.execute(insert(_table(RatingQueueRow)), [
                {"game_id": move.game_id, "created_at": move.now, **ended}
                for ended in move.rate_rounds])
            self.wrote_messages = True  # (the relay sends the rater)
        return True

    def remember_written(self) -> None:
        """After a commit: the states just written are the ones the next reads will ask
        for, so keep them decoded."""
        for game, seen_at in self._reseated:
            self.reads.states.seat(game.id, seating_of(game), seen_at)
        for game, seen_at in self._written:
            self.reads.states.remember(game.id,
                                       Known(game.version, game.events, game.state, seen_at))
        self._written.clear()
        self._reseated.clear()

    def _add_events(self, game: Game, events: Sequence[Event]) -> None:
        if events:
            self.session.connection().execute(_ADD_EVENTS, [
                {"game_id": game.id, "seq": seq, "version": game.version, "round": round_no,
                 "payload": event_to_dict(e)}
                for seq, (round_no, e) in enumerate(_by_round(1, events), start=1)])

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]:
        return self.reads.events_after(game_id, after, limit)

    def actions(self, game_id: str) -> list[str]:
        return list(self.session.scalars(
            select(ActionRow.action).where(ActionRow.game_id == game_id)
            .order_by(ActionRow.seq)))

    def stored_state(self, game_id: str) -> StoredState | None:
        """The stored snapshot, decoded now (no cache), with its version."""
        known = self.reads.stored_state(game_id)
        return None if known is None else StoredState(known.version, known.state)

    def remembered(self, game_id: str, seat: int, key: str) -> tuple[str, int] | None:
        """(action text, resulting version) of an earlier action sent with ``key``."""
        return self.reads.remembered(game_id, seat, key)



class InGames:
    """A port written in the games' transaction (the lobby, the turn sweep): their
    session and the database's clock."""

    def __init__(self, games: SqlGameRepository) -> None:
        self._games = games

    @property
    def session(self) -> Session:
        return self._games.session

    def _clock(self) -> Moment:
        return self._games._clock()


def _rounds_ended(game: Game, events: Sequence[Event | ServiceEvent]
                  ) -> list[dict[str, object]]:
    """The rounds ``events`` end, of a rated game, as its move queues them to be rated:
    who sat where and the result (``RoundToRate``), so that no game is read to rate."""
    if not game.rated:
        return []
    players = [None if (ref := rated_player(seat, game.owner)) is None else list(ref)
               for seat in game.seats]
    return [{"round": e.result.round_no, "preset": game.preset, "players": players,
             "result": {"ranking": list(e.result.ranking),
                        "roles": [role.value for role in e.result.roles],
                        "points": list(e.result.points)}}
            for e in events if isinstance(e, RoundEnded)]


def summaries(session: Session, which: ColumnElement[bool], status: str | None, limit: int,
              before: tuple[datetime, str] | None) -> list[GameSummary]:
    """A page of the games ``which`` picks, by ``status``, newest first, strictly after
    the ``before`` (created_at, id) cursor."""
    query = select(GameRow).where(which).order_by(GameRow.created_at.desc(),
                                                  GameRow.id.desc())
    if status is not None:
        query = query.where(GameRow.status == status)
    if before is not None:
        created, game_id = before
        query = query.where(or_(GameRow.created_at < created,
                                and_(GameRow.created_at == created, GameRow.id < game_id)))
    return [summary_of(r) for r in session.scalars(query.limit(limit)).unique()]


def summary_of(row: GameRow) -> GameSummary:
    """(Its seats joined: ``GameRow.seats`` loads with the row.)"""
    return GameSummary(
        game_id=row.id,
        status=row.status,
        preset=row.preset,
        version=row.version,
        created_at=row.created_at,
        seats=tuple(Seat(x.seat, x.kind, x.engine, name=x.name) for x in row.seats),
        seeded=row.seeded,
    )


def _seat_row(seat: Seat) -> SeatRow:
    return SeatRow(seat=seat.seat, **_seat_values(seat))


def _seat_values(seat: Seat) -> dict[str, object]:
    return {"kind": seat.kind, "engine": seat.engine, "token_hash": seat.token_hash,
            "player": seat.player, "player_key": seat.player_key, "name": seat.name,
            "host": seat.host, "connected": seat.connected}


# A message handed over this long after its move wrote it (a relay held up, a broker slow
# to take it) moves its turn's due time to the hand-over: its queue's copy expires that
# long after it is due from then on, and the sweeper waits for that.
LATE_S = 0.25
_MOVE_DUE = (update(_table(GameRow))
             .where(GameRow.id == bindparam("b_game"), GameRow.version == bindparam("b_version"),
                    GameRow.turn_due_at < bindparam("b_due"))
             .values(turn_due_at=bindparam("b_due")))


ClaimedRow = Row[Unpack[tuple[Any, ...]]]


def _due_from_hand_over(session: Session, rows: Sequence[ClaimedRow], now: datetime) -> None:
    late = [{"b_game": r.game_id, "b_version": r.version,
             "b_due": now + timedelta(milliseconds=r.delay_ms)}
            for r in rows if now - aware(r.created_at) > timedelta(seconds=LATE_S)]
    if late:
        session.connection().execute(_MOVE_DUE, late)


class SqlOutbox:
    """The ``Outbox`` port: a claim deletes the oldest rows no other relay has locked
    (``SKIP LOCKED`` on PostgreSQL; SQLite has one writer at a time), which the unit of
    work's commit makes final and a rollback undoes."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def claim(self, limit: int) -> list[TurnMessage]:
        session = self._session()
        if session.get_bind().dialect.name == "sqlite" and session.scalar(
                select(OutboxRow.id).limit(1)) is None:
            # Every relay looks five times a second: a look that finds nothing stays a
            # read, which never waits for, nor holds up, a move (a DELETE takes SQLite's
            # one write lock even when it deletes nothing).
            return []
        oldest = (select(OutboxRow.id).order_by(OutboxRow.id).limit(limit)
                  .with_for_update(skip_locked=True))
        now = clock(session)  # the hand-over's time: PostgreSQL's read in the statement
        read_now = () if isinstance(now, datetime) else (now.label("now"),)
        rows = session.execute(
            delete(OutboxRow).where(OutboxRow.id.in_(oldest.scalar_subquery()))
            .returning(OutboxRow.id, OutboxRow.game_id, OutboxRow.version, OutboxRow.seat,
                       OutboxRow.engine, OutboxRow.delay_ms, OutboxRow.created_at,
                       OutboxRow.trace, OutboxRow.resent, *read_now)
            .execution_options(synchronize_session=False)).all()
        if rows:
            _due_from_hand_over(session, rows, now if isinstance(now, datetime)
                                else aware(rows[0].now))
        return [
            TurnMessage(
                game_id=r.game_id,
                version=r.version,
                seat=r.seat,
                engine=r.engine,
                delay_s=r.delay_ms / 1000,
                sent_at=aware(r.created_at),
                trace=r.trace,
                resent=r.resent,
            )
            for r in sorted(rows)
        ]

    def put_back(self, messages: Sequence[TurnMessage]) -> None:
        if messages:
            self._session().connection().execute(
                _ADD_MESSAGE, [_message_row(m, m.sent_at or utcnow()) for m in messages])


class SqlKeyRepository:
    """The ``KeyRepository`` port on SQLAlchemy."""

    def __init__(self, session: Callable[[], Session]) -> None:
        self._session = session

    def add(self, key: ApiKey, secret_hash: str) -> None:
        self._session().add(ApiKeyRow(
            id=key.id, name=key.name, secret_hash=secret_hash, scopes=sorted(key.scopes),
            rate=key.rate, max_active_games=key.max_active_games,
            ai_seconds_per_hour=key.ai_seconds_per_hour, created_at=key.created_at or utcnow()))

    def by_hash(self, secret_hash: str) -> ApiKey | None:
        row = self._session().scalar(select(ApiKeyRow).where(ApiKeyRow.secret_hash == secret_hash))
        return None if row is None else _key(row)

    def all(self) -> list[ApiKey]:
        return [_key(row) for row in self._session().scalars(
            select(ApiKeyRow).order_by(ApiKeyRow.created_at, ApiKeyRow.id))]

    def revoke(self, key_id: str, when: datetime) -> bool:
        row = self._session().get(ApiKeyRow, key_id)
        if row is None:
            return False
        row.revoked_at = row.revoked_at or when
        return True


def _key(row: ApiKeyRow) -> ApiKey:
    return ApiKey(
        id=row.id,
        name=row.name,
        scopes=frozenset(row.scopes),
        rate=row.rate,
        max_active_games=row.max_active_games,
        ai_seconds_per_hour=row.ai_seconds_per_hour,
        created_at=aware(row.created_at),
        revoked=row.revoked_at is not None,
    )
