"""The database tables, as SQLAlchemy 2 typed models. Only ``services.store`` imports
them: the service layer sees ``services.domain`` objects, the engine sees neither."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, false,
    text, true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    pass


class GameRow(Base):
    __tablename__ = "games"
    # Few indexes: a move rewrites the row and every index on what it changes
    # (migration 0005). ix_games_waiting also serves queries on the status alone.
    __table_args__ = (Index("ix_games_waiting", "status", "updated_at"),
                      Index("ix_games_turn_deadline", "turn_deadline",
                            postgresql_where=text("turn_deadline IS NOT NULL"),
                            sqlite_where=text("turn_deadline IS NOT NULL")),
                      # a key's games, newest first (listing); never rewritten by a move
                      Index("ix_games_owner", "owner", "created_at", "id"),
                      Index("ix_games_invite", "invite_hash", unique=True,
                            postgresql_where=text("invite_hash IS NOT NULL"),
                            sqlite_where=text("invite_hash IS NOT NULL")))

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))  # "waiting" | "active" | "over" | "cancelled"
    preset: Mapped[str] = mapped_column(String(32))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    # Number of actions applied: the optimistic-concurrency token of every write.
    version: Mapped[int] = mapped_column(Integer, default=0)
    # The current engine state (engine.snapshot), rebuilt-equal from seed + actions.
    # Loaded only when needed: the repository keeps decoded states per version.
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSON, deferred=True)
    events: Mapped[int] = mapped_column(Integer, default=0)  # events recorded so far
    pace_ms: Mapped[int] = mapped_column(Integer, default=0)  # pause before each AI move
    turn_timeout_ms: Mapped[int | None] = mapped_column(Integer)  # humans' limit; None: off
    # The seat to act (-1: over), kept beside the snapshot so the sweeper can find games
    # waiting on a seat without decoding them (index ix_games_waiting: status, updated_at).
    to_act: Mapped[int] = mapped_column(Integer, default=-1)
    # When the human seat to act runs out of time (None: no human with a limit to act).
    turn_deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # When the turn's message is due to run (after the pace, or at the human's deadline):
    # the sweeper sends it again only well after (``GameRepository.stalled``).
    turn_due_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    owner: Mapped[str | None] = mapped_column(String(32))  # the client key's id; None: anonymous
    ai_seconds_per_hour: Mapped[int | None] = mapped_column(Integer)  # its owner's, when made
    # Seat changes so far: written on condition of it, as of the version (docs/lobby.md).
    seated: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # "public" | "private"; None: made before 0014, private if a key made it
    visibility: Mapped[str | None] = mapped_column(String(8))
    takeover: Mapped[str] = mapped_column(String(64), default="normal",
                                          server_default="normal")  # the AI for a leaver
    invite_hash: Mapped[str | None] = mapped_column(String(64))  # while it waits for seats
    rematch_id: Mapped[str | None] = mapped_column(String(32))  # the next series, once made
    hints: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # Its creator chose its seed (docs/lobby.md#fair-deals): only its creator and AI sit.
    seeded: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    max_active_games: Mapped[int | None] = mapped_column(Integer)  # its owner's, when made

    seats: Mapped[list[SeatRow]] = relationship(order_by="SeatRow.seat", lazy="joined",
                                                cascade="all, delete-orphan")


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (Index("ix_seats_player", "player_key", "player",
                            postgresql_where=text("player IS NOT NULL"),
                            sqlite_where=text("player IS NOT NULL")),
                      Index("ix_seats_connected", "seen_at", postgresql_where=text("connected"),
                            sqlite_where=text("connected")))

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # "human" | "ai" | "open"
    engine: Mapped[str | None] = mapped_column(String(64))  # AI engine name
    # SHA-256 of the seat's secret token (tokens are 256-bit random: no salt needed).
    token_hash: Mapped[str | None] = mapped_column(String(64))
    player_key: Mapped[str | None] = mapped_column(String(32))  # the key that named it
    player: Mapped[str | None] = mapped_column(String(64))  # the client's id of its player
    name: Mapped[str | None] = mapped_column(String(64))
    host: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Heard from lately (a request, an open stream): written at most every few seconds.
    connected: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class PlayerRow(Base):
    """A player a client key named (its id is the key's business: opaque here)."""

    __tablename__ = "players"

    owner: Mapped[str] = mapped_column(String(32), primary_key=True)  # the key's id
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ActionRow(Base):
    """The append-only action log: the source of truth of a game."""

    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1, 2, …: the version it made
    round: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(Text)  # canonical action text
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class EventRow(Base):
    """What each action caused (engine.snapshot.event_to_dict), unredacted: the API
    redacts per caller when it reads them."""

    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)  # 1, 2, … per game
    version: Mapped[int] = mapped_column(Integer)  # the game version after its action
    # The round it belongs to (a round's replay reads its own); None: written before 0008.
    round: Mapped[int | None] = mapped_column(Integer)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)


class IdempotencyRow(Base):
    """An action sent with an Idempotency-Key: a retry finds it and gets the same result."""

    __tablename__ = "idempotency_keys"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(128), primary_key=True)
    action: Mapped[str] = mapped_column(Text)  # what was sent the first time
    version: Mapped[int] = mapped_column(Integer)  # the game version it produced


class ApiKeyRow(Base):
    """A client application's key: its secret's SHA-256 only, never the secret."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[list[str]] = mapped_column(JSON)
    rate: Mapped[str | None] = mapped_column(String(64))  # its own limit, e.g. "600/minute"
    max_active_games: Mapped[int | None] = mapped_column(Integer)
    ai_seconds_per_hour: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class AiUsageRow(Base):
    """AI thinking time an owner's games used in an hour (its AI quota)."""

    __tablename__ = "ai_usage"

    owner: Mapped[str] = mapped_column(String(32), primary_key=True)
    hour: Mapped[datetime] = mapped_column(DateTime(timezone=True), primary_key=True)
    seconds: Mapped[float] = mapped_column(Float)


BIG_ID = BigInteger().with_variant(Integer(), "sqlite")  # (SQLite numbers it itself)


class OutboxRow(Base):
    """A turn a committed move set in motion, written in the move's transaction, until a
    relay hands it to the queue (``handlers.outbox``): then deleted."""

    __tablename__ = "outbox"

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(32))
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int] = mapped_column(Integer)
    engine: Mapped[str | None] = mapped_column(String(64))  # None: a human's time limit
    delay_ms: Mapped[int] = mapped_column(Integer)  # the AI's pace, or the human's time
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # database clock
    trace: Mapped[str | None] = mapped_column(String(64))  # the move's traceparent
    resent: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class WebhookEndpointRow(Base):
    """Where a client key wants its games' events sent; the signing secret encrypted
    (``services.ports.Secrets``), never in clear."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_owner", "owner"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(32))  # the client key's id
    url: Mapped[str] = mapped_column(String(2048))
    event_types: Mapped[list[str]] = mapped_column(JSON)
    description: Mapped[str | None] = mapped_column(String(200))
    secret: Mapped[str] = mapped_column(Text)  # encrypted
    enabled: Mapped[bool] = mapped_column(Boolean)
    disabled_reason: Mapped[str | None] = mapped_column(String(300))
    failing_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


PENDING = text("state = 'pending'")


class WebhookMessageRow(Base):
    """One event for one endpoint, written in the move's transaction. The relay hands it
    over when ``due_at`` comes (``hand`` counts the hand-overs: only the task holding the
    latest may attempt it); an attempt that fails makes it due again later."""

    __tablename__ = "webhook_messages"
    __table_args__ = (Index("ix_webhook_messages_due", "due_at",
                            postgresql_where=PENDING, sqlite_where=PENDING),
                      Index("ix_webhook_messages_endpoint", "endpoint_id", "id"),
                      Index("ix_webhook_messages_created", "created_at"))

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True, autoincrement=True)
    webhook_id: Mapped[str] = mapped_column(String(40), unique=True)  # the same every attempt
    endpoint_id: Mapped[str] = mapped_column(
        ForeignKey("webhook_endpoints.id", ondelete="CASCADE"))
    type: Mapped[str] = mapped_column(String(40))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # database clock
    state: Mapped[str] = mapped_column(String(12))  # "pending" | "delivered" | "failed"
    due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    hand: Mapped[int] = mapped_column(Integer)
    attempts: Mapped[int] = mapped_column(Integer)


class WebhookAttemptRow(Base):
    """One attempt to deliver a message, and what the endpoint answered."""

    __tablename__ = "webhook_attempts"
    __table_args__ = (Index("ix_webhook_attempts_endpoint", "endpoint_id", "id"),
                      Index("ix_webhook_attempts_message", "message_id"))

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(
        BIG_ID, ForeignKey("webhook_messages.id", ondelete="CASCADE"))
    endpoint_id: Mapped[str] = mapped_column(String(32))
    attempted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    status_code: Mapped[int | None] = mapped_column(Integer)  # None: no answer
    latency_ms: Mapped[int] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(String(300))


class RatingQueueRow(Base):
    """A round of a rated game to rate, written by the move that ended it; deleted once
    rated (``handlers.ratings``), in the order written."""

    __tablename__ = "rating_queue"

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(32))
    round: Mapped[int] = mapped_column(Integer)
    # What rating the round needs, written by its move: no game is read to rate it.
    preset: Mapped[str] = mapped_column(String(32))
    players: Mapped[list[Any]] = mapped_column(JSON)  # per seat: [owner, player] | null
    result: Mapped[dict[str, Any]] = mapped_column(JSON)  # ranking, roles, points
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatedRoundRow(Base):
    """A round rated: its key makes a second rating of it impossible."""

    __tablename__ = "rated_rounds"

    game_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    pool: Mapped[str] = mapped_column(String(80))
    rated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingRow(Base):
    """A player's rating in a pool (OpenSkill's Plackett-Luce: mu, sigma; the ordinal,
    mu - 3 sigma, orders the leaderboards)."""

    __tablename__ = "ratings"
    # (the figures a board shows in the index too: a page reads no table row)
    __table_args__ = (Index("ix_ratings_board", "pool", "owner", "ordinal", "player",
                            postgresql_include=["rounds", "mu", "sigma"]),)

    pool: Mapped[str] = mapped_column(String(80), primary_key=True)
    owner: Mapped[str] = mapped_column(String(32), primary_key=True)  # the key (AI: tenant)
    player: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    rounds: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingHistoryRow(Base):
    """One rated round of one player: its place, role and points, and its rating after."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_player", "owner", "player", "pool", "id"),)

    id: Mapped[int] = mapped_column(BIG_ID, primary_key=True, autoincrement=True)
    pool: Mapped[str] = mapped_column(String(80))
    owner: Mapped[str] = mapped_column(String(32))
    player: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str] = mapped_column(String(32))
    round: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)  # 1: the Président
    role: Mapped[str] = mapped_column(String(16))
    points: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    ordinal: Mapped[float] = mapped_column(Float)
    rated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


WAITING = text("state = 'waiting'")


class TicketRow(Base):
    """A player waiting for a table (``handlers.matchmaking``); once matched, its game,
    seat and that seat's token, encrypted until shown (once)."""

    __tablename__ = "tickets"
    __table_args__ = (Index("ix_tickets_live", "owner", "player", unique=True,
                            postgresql_where=WAITING, sqlite_where=WAITING),
                      Index("ix_tickets_waiting", "created_at",
                            postgresql_where=WAITING, sqlite_where=WAITING))

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    owner: Mapped[str] = mapped_column(String(32))  # the key's id
    player: Mapped[str] = mapped_column(String(64))
    preset: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)  # the table's size
    pool: Mapped[str] = mapped_column(String(80))
    ordinal: Mapped[float] = mapped_column(Float)  # the player's rating when it came
    fill: Mapped[str] = mapped_column(String(64))  # the AI level for the seats left
    state: Mapped[str] = mapped_column(String(12))  # waiting | matched | cancelled
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    game_id: Mapped[str | None] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer)
    sealed_token: Mapped[str | None] = mapped_column(Text)
    # Its key's quotas when it came, which its game carries (None: no bound).
    max_active_games: Mapped[int | None] = mapped_column(Integer)
    ai_seconds_per_hour: Mapped[int | None] = mapped_column(Integer)


OPEN = text("state IN ('queued', 'running')")


class ReviewRow(Base):
    """A round's review (``handlers.reviews``): one a round; while running, a lease the
    sweeper sends it again after (its task lost with a worker or the broker)."""

    __tablename__ = "reviews"
    __table_args__ = (Index("ix_reviews_open", "requested_at",
                            postgresql_where=OPEN, sqlite_where=OPEN),)

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"),
                                         primary_key=True)
    round_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    state: Mapped[str] = mapped_column(String(12))  # queued | running | done | failed
    owner: Mapped[str | None] = mapped_column(String(32))
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))  # its task, last
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)  # decisions weighed so far
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # seats, decisions, totals
    error: Mapped[str | None] = mapped_column(Text)


class SchemaReadersRow(Base):
    """The oldest code (by its newest migration) that still runs on this database: written
    by every migration run (``migrations/env.py``), read by ``/readyz`` of code older than
    the database."""

    __tablename__ = "schema_readers"

    oldest_reader: Mapped[str] = mapped_column(String(32), primary_key=True)
