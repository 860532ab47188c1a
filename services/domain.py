"""What the service layer works with: a game as the engine state plus its seats.

Plain values, no SQLAlchemy: ``services.store.repository`` maps them to rows.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable, Literal, NamedTuple, cast, get_args

from engine import State, apply, apply_unchecked, parse_action


LARGEST_NUMBER = 2**31 - 1  # versions and event numbers are stored as 32-bit integers


def advanced(state: State, actions: Iterable[str], *, checked: bool = True) -> State:
    """``state`` with the logged ``actions`` (canonical texts) applied in order. Unchecked
    only for actions known to be committed: the log itself, checked before its write."""
    for text in actions:
        action = parse_action(text)
        state = apply(state, action)[0] if checked else apply_unchecked(state, action)
    return state


ORIGIN = "a:"  # what an anonymous caller's origin starts with; a key's id never does


def key_owning(owner: str | None) -> str | None:
    """The client key's id a game's ``owner`` is, or None: an anonymous caller's
    origin, or nobody."""
    return None if owner is None or owner.startswith(ORIGIN) else owner


def origin_of(address: str) -> str:
    """An anonymous caller's origin: its address, hashed (as long as a key's id)."""
    return ORIGIN + hashlib.sha256(address.encode()).hexdigest()[:30]


def new_token() -> str:
    return secrets.token_urlsafe(32)


def new_seed() -> int:
    """A deal nobody can choose or foresee."""
    return secrets.randbits(63)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Seat:
    seat: int
    kind: str  # "human" | "ai" | "open" (waiting for someone to join)
    engine: str | None = None  # the AI engine's configured name
    token_hash: str | None = field(default=None, repr=False)
    player: str | None = None  # the client application's id of its player
    name: str | None = None  # its player's display name
    host: bool = False  # human at the creation: its token may start or cancel the game
    player_key: str | None = None  # the key that named ``player`` (its namespace)
    connected: bool = False  # its human was heard from lately (``handlers.presence``)

    def accepts(self, token_hash: str) -> bool:
        """Constant-time comparison of a presented token's hash with the stored one."""
        return self.token_hash is not None and hmac.compare_digest(self.token_hash,
                                                                   token_hash)


SCOPES = ("games:create-human", "games:create-ai", "games:read", "webhooks")
"""What a client key may do: create games with a human seat; create games with no human
seat (where the AI cost is); read and list its own games; register webhook endpoints."""


@dataclass(frozen=True)
class ApiKey:
    """A client application's key (the secret itself is never kept: ``hash_token``)."""

    id: str  # public: what lists show and ``revoke`` takes
    name: str
    scopes: frozenset[str]
    rate: str | None = None  # its own rate limit ("600/minute"); None: the settings'
    max_active_games: int | None = None  # None: the settings' default
    ai_seconds_per_hour: int | None = None  # None: the settings' default
    created_at: datetime | None = None
    revoked: bool = False


@dataclass(frozen=True)
class Caller:
    """Who is asking: a client key, or nobody (open mode, or a seat token's own calls),
    from an ``origin`` (an anonymous caller's address, hashed), with its quotas (None:
    none): games under way, AI thinking time an hour."""

    key: ApiKey | None = None
    origin: str | None = None
    max_active_games: int | None = None
    ai_seconds_per_hour: int | None = None  # AI thinking time its games may use an hour

    @property
    def owner(self) -> str | None:
        """What a game this caller makes belongs to: its key, else its origin."""
        return self.origin if self.key is None else self.key.id

    def may(self, scope: str) -> bool:
        return self.key is None or scope in self.key.scopes


ANONYMOUS = Caller()


Phase = Literal["waiting", "playing", "cancelled"]
Visibility = Literal["public", "private"]


@dataclass(frozen=True)
class Table:
    """What a game's lobby says of it: waiting for its open seats, under way (or over),
    or cancelled; who may watch it; which AI level plays a seat its human leaves."""

    phase: Phase = "playing"
    visibility: Visibility = "public"
    takeover: str = "normal"
    hints: bool = True  # its seats may ask the AI for a hint (off for rated play)
    seeded: bool = False  # its creator chose its deal: only its creator and AI sit in it


def table_of(status: str, visibility: str | None, takeover: str, owner: str | None,
             hints: bool = True, seeded: bool = False) -> Table:
    """A game's table as stored: its status says its phase; a game stored with no
    visibility (made before there was one) is private if a key made it."""
    phase: Phase = ("waiting" if status == "waiting" else
                    "cancelled" if status == "cancelled" else "playing")
    if visibility not in ("public", "private"):
        visibility = "public" if key_owning(owner) is None else "private"
    return Table(phase, cast(Visibility, visibility), takeover, hints, seeded)


@dataclass
class Game:
    id: str
    preset: str
    seats: tuple[Seat, ...]
    state: State
    version: int = 0  # actions applied so far
    events: int = 0  # events recorded so far
    pace_ms: int = 0  # pause before each AI move, so that a human can follow
    turn_timeout_ms: int | None = None  # a human seat's time to act; None: no limit
    owner: str | None = None  # the id of the client key that made it; None: anonymous
    # Its owner's AI thinking time an hour when it was made (None: no bound): past it,
    # its AI seats play the fallback level (``played_for``, reason ``ai_quota``).
    ai_seconds_per_hour: int | None = None
    # Seat changes so far (joins, leaves, the start): every write to the game is
    # conditional on it as on the version, so none is made against seats that changed.
    seated: int = 0
    table: Table = Table()
    max_active_games: int | None = None  # its owner's, when made (its rematch counts)

    @property
    def status(self) -> str:
        if self.table.phase != "playing":
            return self.table.phase
        return "over" if self.state.is_over else "active"

    @property
    def seat_to_act(self) -> Seat | None:
        if self.table.phase != "playing" or self.state.to_act < 0:
            return None
        return self.seats[self.state.to_act]

    @property
    def rated(self) -> bool:
        """Its rounds are rated: a seat names a player (docs/ratings.md), and its deal
        was drawn (a chosen one rates nobody, whoever sits)."""
        return not self.table.seeded and any(seat.player is not None for seat in self.seats)

    def seat_of(self, token: str) -> Seat | None:
        # every seat is compared, so the time taken does not tell which one matched
        found, presented = None, hash_token(token)
        for seat in self.seats:
            if seat.accepts(presented):
                found = seat
        return found


@dataclass(frozen=True)
class GameSummary:
    """A game in a list: no state, no hands."""

    game_id: str
    status: str
    preset: str
    version: int
    created_at: datetime
    seats: tuple[Seat, ...]
    seeded: bool = False


class Waiting(NamedTuple):
    """A game waiting on one seat (``GameRepository.waiting``)."""

    game_id: str
    version: int
    seat: int
    engine: str | None


@dataclass(frozen=True)
class TurnMessage:
    """A turn a committed move sets in motion, kept in the outbox until a relay hands it
    to the ``TurnScheduler``: AI ``seat`` to play after ``delay_s`` (its pace), or human
    ``seat``'s time limit, ``delay_s`` from now (``engine`` None). ``resent``: written
    again by the sweeper (its first message was lost), to be served before new turns."""

    game_id: str
    version: int
    seat: int
    engine: str | None
    delay_s: float
    sent_at: datetime | None = None  # when it was written, by the database's clock
    trace: str | None = None  # the traceparent of the move that wrote it (tracing on)
    resent: bool = False

    @property
    def is_ai(self) -> bool:
        return self.engine is not None


@dataclass(frozen=True)
class PlayedFor:
    """A service event, recorded just before the play it explains: the service played
    ``seat``'s action itself, because its AI engine kept failing (``ai_failed``), the
    game's owner used its AI thinking time of the hour (``ai_quota``) or its human did
    not act in time (``turn_timeout``). ``policy`` says how: ``easy`` (the Easy level, in
    process) or ``pass``."""

    seat: int
    reason: str
    policy: str

    TYPE = "played_for"

    def to_dict(self) -> dict[str, object]:
        return {"type": self.TYPE, "seat": self.seat, "reason": self.reason,
                "policy": self.policy}

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> PlayedFor:
        return cls(int(data["seat"]), str(data["reason"]), str(data["policy"]))  # type: ignore[call-overload]


AI_PREFIX = "ai:"  # the AI levels' player ids ("ai:hard"): no key's player has one


class PlayerRef(NamedTuple):
    """A rated player: a key's player (``owner``: the key's id), or an AI level as one
    tenant sees it (``owner``: the tenant, the owner of the games it played;
    ``player``: ``ai:<level>``). Each tenant rates the AI levels apart, so that no key
    moves another's view of them."""

    owner: str
    player: str

    @property
    def is_ai(self) -> bool:
        return self.player.startswith(AI_PREFIX)


def rated_player(seat: Seat, tenant: str | None) -> PlayerRef | None:
    """Whom a seat's rounds rate: its player (also for the rounds an AI plays for it
    once it left: leaving does not escape them), else its AI level in ``tenant`` (the
    game's owner); None: a person with no player id, or an AI in a game of no owner,
    who are not rated."""
    if seat.player is not None and seat.player_key is not None:
        return PlayerRef(seat.player_key, seat.player)
    if seat.kind == "ai" and seat.engine is not None and tenant is not None:
        return PlayerRef(tenant, AI_PREFIX + seat.engine)
    return None


@dataclass(frozen=True)
class Rating:
    """A player's rating in a pool: OpenSkill's Plackett-Luce ``mu`` and ``sigma``;
    ``ordinal`` (mu - 3 sigma), a conservative rating, orders the leaderboards."""

    mu: float
    sigma: float
    ordinal: float
    rounds: int = 0


@dataclass(frozen=True)
class RoundToRate:
    """A finished round of a rated game, as its move queued it: who sat where (None: a
    person who is not rated) and the round's places, roles and points per seat."""

    game_id: str
    round_no: int
    preset: str
    players: tuple[PlayerRef | None, ...]  # per seat
    ranking: tuple[int, ...]  # seats, the Président first
    roles: tuple[str, ...]  # per seat
    points: tuple[int, ...]  # per seat


@dataclass(frozen=True)
class RatedRound:
    """One player's part in a rated round, and its rating after it."""

    ref: PlayerRef
    game_id: str
    round_no: int
    place: int  # 1: the Président
    role: str
    points: int
    rating: Rating


@dataclass(frozen=True)
class Ticket:
    """A player waiting for a table of ``players`` seats of ``preset`` (docs/ratings.md):
    ``waiting``, then ``matched`` (its game and seat) or ``cancelled``."""

    id: str
    owner: str  # the key's id
    player: str
    preset: str
    players: int
    pool: str
    ordinal: float  # its rating in the pool when it came: what matches it with others
    fill: str  # the AI level for the seats nobody took once the wait is over
    created_at: datetime
    expires_at: datetime
    state: str = "waiting"
    game_id: str | None = None
    seat: int | None = None
    max_active_games: int | None = None  # its key's quotas, which its game carries
    ai_seconds_per_hour: int | None = None


class Weighed(NamedTuple):
    """A candidate an AI level weighed: the round's points it expects for the seat and
    the simulations behind them."""

    action: str  # canonical text
    expected_points: float
    simulations: int


@dataclass(frozen=True)
class Hint:
    """What ``level`` would play now from one seat's view, and (Hard, Expert) what it
    weighed."""

    level: str
    action: str  # canonical text: one of the seat's legal actions
    candidates: tuple[Weighed, ...] = ()
    # the level's own thinking, where the adviser knows it (None: the call's whole time,
    # which a wait for a place in this machine's AI pool would otherwise swell)
    thought_s: float | None = None


@dataclass(frozen=True)
class Decision:
    """One decision of a reviewed round, in the order of the round's log. For a seat
    reviewed (a human's), Expert's choice from that seat's view at the time and the
    round's points expected of each (None: not weighed: a gift, by rule rather than by
    search); ``lost`` is what the action taken cost by Expert's reckoning (0 when they
    agree or the seat had no choice)."""

    index: int  # 1-based, within the round
    seat: int
    action: str | None  # canonical text; None: a gift the viewer did not see
    receiver: int | None = None  # a gift's
    best: str | None = None  # Expert's choice (reviewed seats only)
    taken_points: float | None = None
    best_points: float | None = None
    lost: float | None = None
    simulations: int = 0


REVIEW_STATES = ("queued", "running", "done", "failed")


@dataclass(frozen=True)
class Review:
    """A round's review (``handlers.reviews``): queued, running, then done with every
    decision of the round and each reviewed seat's total of points lost."""

    game_id: str
    round_no: int
    state: str  # one of REVIEW_STATES
    owner: str | None  # the game's owner, whose AI time it spends
    requested_at: datetime
    finished_at: datetime | None = None
    seats: tuple[int, ...] = ()  # the seats reviewed (the human ones)
    decisions: tuple[Decision, ...] = ()
    totals: dict[int, float] = field(default_factory=dict)  # seat -> points lost
    done: int = 0  # decisions weighed so far (while running)
    error: str | None = None
    attempts: int = 0  # runs started (a worker lost with one leaves it to the next)


class Standing(NamedTuple):
    """A player on a leaderboard: its place (1: the best) and rating."""

    rank: int
    ref: PlayerRef
    rating: Rating


@dataclass(frozen=True)
class PoolSummary:
    """A player's figures in one pool: its rating now, and over its rated rounds its
    series, how often it was Président and Trou du cul, its mean points a round."""

    pool: str
    rating: Rating
    series: int
    presidents: int
    trous: int
    points: int  # in all

    @property
    def president_rate(self) -> float:
        return self.presidents / self.rating.rounds if self.rating.rounds else 0.0

    @property
    def trou_rate(self) -> float:
        return self.trous / self.rating.rounds if self.rating.rounds else 0.0

    @property
    def mean_points(self) -> float:
        return self.points / self.rating.rounds if self.rating.rounds else 0.0


TableEventType = Literal["seat_joined", "game_started", "game_cancelled", "seat_left",
                         "seat_taken_over", "rematch_created", "seat_connected",
                         "seat_disconnected"]


@dataclass(frozen=True)
class TableEvent:
    """A service event about the table rather than the cards (docs/lobby.md): a seat
    joined (``seat``, ``name``); the game started (``filled``: open seats the AI took,
    ``engine``); it was cancelled; a seat left; an AI took a seat over (``engine``,
    ``reason``: ``left`` or ``timeouts``); the series' rematch was created
    (``rematch``: its game id); a seat's human came or went (``seat_connected``,
    ``seat_disconnected``). Public: it holds no card and no player id."""

    type: TableEventType
    seat: int | None = None
    name: str | None = None
    engine: str | None = None
    reason: str | None = None
    filled: tuple[int, ...] = ()
    rematch: str | None = None

    FIELDS = {"seat_joined": ("seat", "name"), "game_started": ("filled", "engine"),
              "game_cancelled": (), "seat_left": ("seat",),
              "seat_taken_over": ("seat", "engine", "reason"),
              "rematch_created": ("rematch",), "seat_connected": ("seat",),
              "seat_disconnected": ("seat",)}

    def to_dict(self) -> dict[str, object]:
        fields = {name: getattr(self, name) for name in self.FIELDS[self.type]}
        if "filled" in fields:
            fields["filled"] = list(self.filled)
        return {"type": self.type, **fields}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableEvent:
        fields: dict[str, Any] = {name: data.get(name) for name in cls.FIELDS[data["type"]]}
        if "filled" in fields:
            fields["filled"] = tuple(fields["filled"] or ())
        return cls(data["type"], **fields)


TABLE_EVENT_TYPES: frozenset[str] = frozenset(get_args(TableEventType))
ServiceEvent = PlayedFor | TableEvent
SERVICE_EVENTS = (PlayedFor, TableEvent)  # (for isinstance)
"""What the service records beside the engine's events (``to_dict``/``from_dict``)."""


def service_event(data: dict[str, Any]) -> ServiceEvent | None:
    """The service event a stored payload holds; None: an engine event."""
    if data.get("type") == PlayedFor.TYPE:
        return PlayedFor.from_dict(data)
    if data.get("type") in TABLE_EVENT_TYPES:
        return TableEvent.from_dict(data)
    return None


INVITE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
INVITE_GROUPS = 3  # of four characters: 60 random bits


def new_invite_code() -> str:
    """A game's invite: short, unguessable, safe to read aloud ("K7QM-2XHD-9RTA")."""
    chars = "".join(secrets.choice(INVITE_ALPHABET) for _ in range(4 * INVITE_GROUPS))
    return "-".join(chars[i:i + 4] for i in range(0, len(chars), 4))


def invite_hash(code: str) -> str | None:
    """What is stored of an invite code, from the code as a person may type it (any case,
    with or without dashes and spaces; O for 0, I and L for 1); None: not a code."""
    typed = code.upper().replace("-", "").replace(" ", "")
    typed = typed.translate(str.maketrans("OIL", "011"))
    if len(typed) != 4 * INVITE_GROUPS or any(c not in INVITE_ALPHABET for c in typed):
        return None
    return hash_token("invite:" + typed)


WebhookType = Literal["seat.turn", "seat.timed_out", "seat.left", "seat.taken_over",
                      "round.ended", "series.ended", "rating.changed"]
WEBHOOK_TYPES: tuple[str, ...] = get_args(WebhookType)
"""What a webhook endpoint may ask to be sent (docs/webhooks.md): a human seat is to act
(with its deadline, if the game has time limits); the service played for a seat; a seat
left; an AI took a seat over; a round ended; the series ended; a player's rating changed."""


@dataclass(frozen=True)
class Hook:
    """One event of a move, of a ``WEBHOOK_TYPES`` type: written in the move's transaction
    for each endpoint of the game's owner that asked for the type."""

    type: str
    data: dict[str, object]


@dataclass(frozen=True)
class WebhookEndpoint:
    id: str
    owner: str  # the client key's id
    url: str
    event_types: tuple[str, ...]
    description: str | None = None
    enabled: bool = True
    disabled_reason: str | None = None  # why the service disabled it (410, failing too long)
    failing_since: datetime | None = None  # its first failed attempt since the last success
    created_at: datetime | None = None


@dataclass(frozen=True)
class Delivery:
    """A message taken for one attempt (``WebhookRepository.start``)."""

    message_id: int
    webhook_id: str  # the same on every attempt: receivers deduplicate by it
    type: str
    data: dict[str, object]
    created_at: datetime  # the move's moment, by the database's clock
    attempt: int  # 1 for the first
    endpoint: WebhookEndpoint
    sealed_secret: str = field(repr=False)
    now: datetime  # when the attempt started, by the database's clock


class Answer(NamedTuple):
    """What an endpoint answered an attempt: its status code (None: no answer at all, as
    ``error`` says) and how long it took."""

    status_code: int | None
    latency_ms: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


@dataclass(frozen=True)
class Outcome:
    """What an attempt leaves: the message ``delivered``, ``failed`` for good, or tried
    again in ``retry_in_s``; the endpoint failing since a moment (None: it works) or
    disabled with a reason."""

    state: str  # "delivered" | "pending" | "failed"
    retry_in_s: float | None
    failing_since: datetime | None
    disabled_reason: str | None = None


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt, as ``GET /v1/webhooks/{id}/deliveries`` lists it."""

    id: int
    webhook_id: str
    type: str
    attempted_at: datetime
    status_code: int | None
    latency_ms: int
    error: str | None
    state: str  # the message's state now
