"""What callers ask of the service layer, as plain values."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SeatSpec:
    kind: str  # "human" | "ai" | "open"
    engine: str | None = None  # for an AI: "easy", "normal", "hard", "expert" or a bot name
    player: str | None = None  # a human seat's player (the key's own id for it)
    name: str | None = None  # its display name


@dataclass(frozen=True)
class CreateGame:
    preset: str
    seats: tuple[SeatSpec, ...]
    options: dict[str, Any] = field(default_factory=dict)
    rounds: int | None = None
    seed: int | None = None
    pace_ms: int | None = None  # pause before each AI move; None: the service's default
    turn_timeout_ms: int | None = None  # human seats' time to act (0: none); None: default
    visibility: str | None = None  # "public" | "private"; None: private if a key makes it
    takeover: str | None = None  # the AI level for a seat its human leaves; None: normal
    hints: bool = True  # its seats may ask for hints


@dataclass(frozen=True)
class CreateKey:
    name: str
    scopes: tuple[str, ...]
    rate: str | None = None  # e.g. "600/minute"; None: the settings' default
    max_active_games: int | None = None
    ai_seconds_per_hour: int | None = None


@dataclass(frozen=True)
class RegisterWebhook:
    url: str
    event_types: tuple[str, ...]
    description: str | None = None


@dataclass(frozen=True)
class UpdateWebhook:
    """None: unchanged. ``enabled=True`` on a disabled endpoint enables it again."""

    webhook_id: str
    url: str | None = None
    event_types: tuple[str, ...] | None = None
    description: str | None = None
    enabled: bool | None = None


@dataclass(frozen=True)
class WebhookPolicy:
    """How deliveries go (the ``PRESIDENT_WEBHOOK_*`` settings): the pauses between
    attempts, the longest an endpoint may keep failing before it is disabled, how many
    endpoints a key may have, how long finished messages are kept."""

    retry_s: tuple[float, ...]
    disable_after_s: float
    per_key: int
    keep_s: float
    queue_wait_s: float  # a message handed over waits this long for its attempt to start
    lease_s: float  # an attempt holds its message this long (a worker may die with it)


@dataclass(frozen=True)
class TableDefaults:
    """What a new game gets where its creator says nothing (PRESIDENT_AI_PACE_MS,
    PRESIDENT_TURN_TIMEOUT_MS)."""

    pace_ms: int = 0
    turn_timeout_ms: int | None = None  # None: no limit


@dataclass(frozen=True)
class Act:
    game_id: str
    token: str
    action: str  # canonical action text
    version: int  # the version the action was made against
    idempotency_key: str | None = None  # a retry with the same key returns the first result


@dataclass(frozen=True)
class ReadGame:
    game_id: str
    token: str | None = None  # None: the spectator's view


@dataclass(frozen=True)
class Turn:
    """A turn the scheduler was told of: ``seat`` to act with the game at ``version``."""

    game_id: str
    seat: int
    version: int


@dataclass(frozen=True)
class Join:
    """Take a free seat of the waiting game ``code`` opens, as ``player`` (a key's)."""

    code: str
    player: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class Start:
    """Start a waiting game now, its open seats played by ``fill`` (None: the game's
    takeover level), with the owner's key or a host seat's ``token``."""

    game_id: str
    token: str | None = None
    fill: str | None = None


@dataclass(frozen=True)
class OpenTicket:
    """A key's player asks for a table: ``players`` seats of ``preset``, waiting up to
    ``wait_s`` before the seats nobody took are filled with the AI level ``fill``."""

    player: str
    preset: str
    players: int
    wait_s: float
    fill: str = "normal"
    seed: int | None = None  # refused: a table of others gets the deal the service draws


@dataclass(frozen=True)
class ReviewPolicy:
    """How reviews are computed (the ``PRESIDENT_REVIEW_*`` settings): Expert's time a
    decision, and how long a review's task may wait unstarted before it is dropped (the
    sweeper sends the review again then)."""

    budget_ms: float
    expires_s: float

    @property
    def lease_s(self) -> float:
        """A running review's lease, renewed at each decision: a few decisions' time, so
        that one lost with its worker is taken up again soon."""
        return 10.0 + 4 * self.budget_ms / 1000


@dataclass(frozen=True)
class RatingPolicy:
    """How rounds are rated (the ``PRESIDENT_RATING_*`` settings): which games share a
    pool (``preset-players``: a preset and player count; ``preset``; ``one``), the
    season's suffix (None: none), and the rounds a player needs on a leaderboard."""

    pools: str = "preset-players"
    season: str | None = None
    min_rounds: int = 0
