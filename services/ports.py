"""The ports: what the service layer asks of the world, as typing Protocols.

Handlers are typed against these only; the adapters (``services.store`` for SQLAlchemy,
``workers.turns`` for Celery, ``workers.rpc`` for gRPC) implement them, ``bootstrap``
plugs them in, and ``tests/fakes.py`` fakes them so handler tests need no database.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from types import TracebackType
from typing import Callable, ContextManager, NamedTuple, Protocol, Self, Sequence

from engine import Event, State, View
from engine.plays import Action
from engine.state import LogEntry
from services.domain import (
    Answer, ApiKey, AttemptRecord, Delivery, Game, GameSummary, Hint, Hook, Outcome, PlayerRef,
    PoolSummary, RatedRound, Rating, Review, RoundToRate, ServiceEvent, Standing, Ticket,
    TurnMessage, Waiting,
    WebhookEndpoint,
)

Decide = Callable[[View, str], Action]


class Adviser(Protocol):
    """An AI level asked for a hint (or a review): its choice for the seat of ``view``
    within ``budget_ms`` (None: the level's default), and what it weighed, ``also``
    among it (the action a reviewed seat took)."""

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint: ...
"""An AI engine's choice for the seat of a view: ``decide(view, engine_name)``."""



@dataclass(frozen=True)
class Fallback:
    """What plays a seat the service plays itself (an AI that kept failing, a human out
    of time): ``name`` is recorded as the ``PlayedFor`` policy."""

    name: str
    decide: Callable[[View], Action]


StoredEvent = tuple[int, int, "Event | ServiceEvent"]
"""(seq, version, event) of a game's stored event."""


class StoredState(NamedTuple):
    version: int
    state: State


class VersionConflict(Exception):
    """Another writer moved the game on since it was read (raised by ``save_actions``)."""


class GameRepository(Protocol):
    """Games and their logs: made, read, moved on, reseated."""

    def add(self, game: Game, events: Sequence[Event],
            message: TurnMessage | None = None, hooks: Sequence[Hook] = (),
            invite_hash: str | None = None) -> None:
        """A new game, with the message of its first turn (written to the outbox), its
        ``hooks``, for its owner's webhook endpoints, and its invite's hash."""

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """``at_least``: a version the caller knows the game has reached."""

    def known(self, game_id: str, version: int) -> Game | None:
        """The game as this process last saw it, if at ``version`` (no database read)."""

    def save_actions(self, game: Game, read_version: int, entries: list[LogEntry],
                     events: Sequence[Event | ServiceEvent],
                     key: tuple[int, str, str] | None = None,
                     message: TurnMessage | None = None, hooks: Sequence[Hook] = ()) -> None:
        """Append the log ``entries`` and ``events``, store ``game``'s new state,
        remember the Idempotency-Key ``key`` (seat, key, action text), write the next
        turn's ``message`` to the outbox and one webhook message per hook and endpoint
        of the game's owner that asked for its type, if and only if nobody wrote since
        ``read_version`` (else ``VersionConflict``)."""

    def fresh(self, game_id: str) -> Game | None:
        """The game with its seats as stored now (none held in memory)."""

    def reseat(self, game: Game, read_version: int, read_seated: int,
               events: Sequence[ServiceEvent], turn: bool = False,
               message: TurnMessage | None = None, hooks: Sequence[Hook] = ()) -> None:
        """Store ``game``'s seats, status and table (one more seat change) with
        ``events`` and ``hooks``, if and only if nobody wrote since ``read_version`` and
        ``read_seated`` (else ``VersionConflict``). ``turn``: the turn starts again (the
        game started, or the seat to act changed hands), with ``message`` (written to
        the outbox) and a new time limit; else the turn's limit and message stand."""

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]: ...

    def actions(self, game_id: str) -> list[str]:
        """The game's action log, as canonical action texts, in order."""

    def stored_state(self, game_id: str) -> StoredState | None:
        """The stored snapshot, decoded now, never from a cache."""

    def remembered(self, game_id: str, seat: int, key: str) -> tuple[str, int] | None:
        """(action text, resulting version) of an earlier action sent with ``key``."""


class LobbyRepository(Protocol):
    """The lobby's rows (``handlers.tables``, ``handlers.presence``): seats' presence,
    invites, rematches."""

    def touch(self, game_id: str, seat: int) -> None:
        """The seat's human was heard from now (by the database's clock)."""

    def gone_quiet(self, after_s: float, limit: int = 500) -> list[tuple[str, int]]:
        """(game id, seat) of connected seats not heard from for ``after_s``."""

    def set_invite(self, game_id: str, invite_hash: str | None) -> None: ...

    def by_invite(self, invite_hash: str) -> str | None:
        """The id of the game that invite opens (its hash, ``domain.invite_hash``)."""

    def rematch_of(self, game_id: str) -> str | None:
        """The id of the game's rematch, once made."""

    def set_rematch(self, game_id: str, rematch_id: str) -> bool:
        """Name the game's rematch; False if one is named already."""


class TurnRepository(Protocol):
    """The turn sweep (``handlers.turns``): games waiting on a seat, turns due again,
    human deadlines."""

    def waiting(self, kind: str, since: datetime, limit: int = 500) -> list[Waiting]:
        """Active games waiting on a seat of ``kind`` since before ``since``."""

    def stalled(self, after_s: float, limit: int = 500) -> list[Waiting]:
        """Active games whose turn (an AI's, or a human's time limit) was due more than
        ``after_s`` ago by the database's clock, and still waits."""

    def send_again(self, waiting: Waiting) -> bool:
        """Write ``waiting``'s turn to the outbox again, due now; False if the game has
        moved on."""

    def postpone(self, waiting: Waiting, delay_s: float) -> bool:
        """The turn is due again ``delay_s`` from now (a retry's pause): the sweeper
        leaves it alone until then. False if the game has moved on."""

    def out_of_time(self, game_id: str) -> bool:
        """Whether the human seat to act has run past its time limit, by the database's
        clock (the one its deadline was written with)."""


class GameListing(Protocol):
    """Lists of games: a caller's page by page, an owner's finished ones, every id."""

    def page(self, owner: str | None, status: str | None, limit: int,
             before: tuple[datetime, str] | None) -> list[GameSummary]:
        """``owner``'s games (None: the anonymous ones), newest first, strictly after the
        ``before`` (created_at, id) cursor."""

    def ids(self) -> list[str]: ...

    def finished(self, owner: str, since: datetime | None,
                 after: tuple[str, datetime] | None, limit: int) -> list[tuple[str, datetime]]:
        """(id, when it finished) of ``owner``'s finished games in that order, from
        ``since``, strictly after ``after``."""


class QuotaRepository(Protocol):
    """What the quotas count (``handlers.quotas``): games under way, AI time an hour."""

    def active_count(self, owner: str | None) -> int:
        """How many of ``owner``'s games are under way."""

    def add_ai_time(self, owner: str, hour: datetime, seconds: float) -> None:
        """Count ``seconds`` of AI thinking for ``owner``'s games in the ``hour``."""

    def ai_time_since(self, owner: str, since: datetime) -> float:
        """The AI thinking time counted for ``owner``'s games in the hours from
        ``since``'s on."""


class PlayerRepository(Protocol):
    """The players client keys named (``handlers.players``)."""

    def name(self, key: str, player: str, name: str | None) -> None:
        """The player exists (and has that display name, unless None)."""

    def exists(self, key: str, player: str) -> bool: ...

    def games(self, key: str, player: str, status: str | None, limit: int,
              before: tuple[datetime, str] | None) -> list[GameSummary]:
        """The key's own games the player has (or had) a seat in, newest first,
        strictly after the ``before`` (created_at, id) cursor."""


class RatingRepository(Protocol):
    """Ratings, their queue and their history (``handlers.ratings``)."""

    def claim(self, limit: int) -> list[RoundToRate]:
        """The oldest queued rounds, taken off the queue when the unit of work commits;
        no one else rates until then."""

    def pending(self) -> bool:
        """Whether rounds wait to be rated."""

    def mark_rated(self, rounds: Sequence[tuple[str, int, str]]) -> set[tuple[str, int]]:
        """The (game id, round, pool) rounds are rated now: those that were not already,
        as (game id, round)."""

    def get(self, pool: str, refs: Sequence[PlayerRef]) -> dict[PlayerRef, Rating]:
        """The stored ratings of those of ``refs`` rated in ``pool`` before."""

    def save(self, rounds: Sequence[tuple[str, RatedRound]],
             latest: dict[tuple[str, PlayerRef], Rating], hooks: dict[str, list[Hook]]
             ) -> None:
        """Each (pool, rated round) in the history, each player's ``latest`` rating per
        pool, and each key's ``hooks`` for its webhook endpoints."""

    def board(self, pool: str, owner: str, min_rounds: int, limit: int,
              after: tuple[float, str, str, int] | None) -> list[Standing]:
        """``owner``'s players and the AI levels as ``owner``'s games rated them, in
        ``pool`` with ``min_rounds`` at least, best ordinal first, strictly after the
        ``after`` (ordinal, owner, player, rank) cursor."""

    def around(self, pool: str, owner: str, ref: PlayerRef, min_rounds: int,
               count: int) -> list[Standing]:
        """``ref`` and up to ``count`` neighbours on each side, best first, on the
        board ``owner`` sees (empty if ``ref`` is not on it)."""

    def history(self, owner: str, player: str, limit: int) -> list[tuple[str, RatedRound]]:
        """The player's rated rounds, newest first, with their pools."""

    def summaries(self, owner: str, player: str) -> list[PoolSummary]:
        """The player's standing and figures in each pool it was rated in."""


class TicketRepository(Protocol):
    """Matchmaking tickets (``handlers.matchmaking``)."""

    def add(self, ticket: Ticket) -> bool:
        """False: the player has a live ticket already."""

    def get(self, owner: str, ticket_id: str) -> Ticket | None: ...

    def live(self, owner: str) -> int:
        """How many of ``owner``'s tickets wait."""

    def waiting(self, limit: int) -> list[Ticket]:
        """The waiting tickets, oldest first; no one else matches until the unit of work
        ends."""

    def matched(self, ticket_id: str, game_id: str, seat: int, sealed_token: str) -> bool:
        """The waiting ticket has its game; False if it was not waiting any more."""

    def cancel(self, owner: str, ticket_id: str) -> bool:
        """False if it was not waiting."""

    def take_token(self, owner: str, ticket_id: str) -> str | None:
        """The matched seat's sealed token, forgotten as it is taken (shown once)."""

    def pending(self) -> bool:
        """Whether any ticket waits."""


class ReviewRepository(Protocol):
    """Round reviews (``handlers.reviews``): one a round, its lease held while it runs."""

    def add(self, review: Review) -> bool:
        """False: that round's review was asked for already."""

    def get(self, game_id: str, round_no: int) -> Review | None: ...

    def claim(self, game_id: str, round_no: int | None, lease_s: float) -> Review | None:
        """The review, now running for ``lease_s`` (by the database's clock), if it was
        queued or its last run's lease is over; ``round_no`` None: the oldest such of
        any game (``game_id`` ignored)."""

    def progress(self, game_id: str, round_no: int, done: int, lease_s: float) -> None:
        """``done`` decisions weighed; the lease runs ``lease_s`` from now."""

    def finish(self, review: Review) -> bool:
        """Store the finished (done or failed) review; False if it is not running."""

    def send_again(self, after_s: float, limit: int) -> list[tuple[str, int]]:
        """(game id, round) of the reviews queued, or whose run's lease is over, last
        sent more than ``after_s`` ago (their task expired or was lost): marked sent now."""

    def queued(self, owner: str | None) -> int:
        """How many of ``owner``'s reviews wait or run."""


class ReviewQueue(Protocol):
    """Where a review to compute goes: a Celery task on the reviews queue, or a thread
    of this process without a broker."""

    def review(self, game_id: str, round_no: int) -> None: ...


class Nudge(Protocol):
    """A job run soon, however often asked, each run doing all there is to do: the
    rater when rounds wait to be rated, the matcher when a ticket comes (a Celery task,
    or a thread of this process without a broker)."""

    def poke(self) -> None: ...


class KeyRepository(Protocol):
    def add(self, key: ApiKey, secret_hash: str) -> None: ...

    def by_hash(self, secret_hash: str) -> ApiKey | None:
        """The key whose secret hashes so, revoked or not."""

    def all(self) -> list[ApiKey]: ...

    def revoke(self, key_id: str, when: datetime) -> bool:
        """False: no such key."""


class Outbox(Protocol):
    """The messages committed moves wrote, until a relay hands them over."""

    def claim(self, limit: int) -> list[TurnMessage]:
        """The oldest messages no other relay holds, taken out of the outbox when the
        unit of work commits."""

    def put_back(self, messages: Sequence[TurnMessage]) -> None:
        """Claimed ``messages`` that could not be handed over: they stay."""


class WebhookRepository(Protocol):
    """A key's webhook endpoints, and the messages moves wrote for them."""

    def add(self, endpoint: WebhookEndpoint, sealed_secret: str) -> None: ...

    def get(self, owner: str, endpoint_id: str) -> WebhookEndpoint | None: ...

    def all(self, owner: str) -> list[WebhookEndpoint]: ...

    def count(self, owner: str) -> int:
        """``owner``'s endpoints, the owner held until the unit of work ends: two
        registrations at once take turns (a bound that holds)."""

    def update(self, endpoint: WebhookEndpoint, sealed_secret: str | None = None) -> None:
        """Store ``endpoint``'s fields (and a new secret, if given); enabling it again
        clears why it was disabled and since when it failed."""

    def delete(self, owner: str, endpoint_id: str) -> bool:
        """With its messages and attempts; False: no such endpoint."""

    def claim_due(self, limit: int, lease_s: float) -> list[tuple[int, int]]:
        """(message id, hand) of messages due, oldest first, each handed over once more:
        not due again for ``lease_s`` (unless ``put_back``)."""

    def put_back(self, claimed: Sequence[tuple[int, int]]) -> None:
        """Claimed messages that could not be handed over: due now."""

    def start(self, message_id: int, hand: int, lease_s: float) -> Delivery | None:
        """Take the message for an attempt, if ``hand`` is still its latest hand-over (or
        the one whose claim is being committed) and it waits; it is due again after
        ``lease_s`` (a worker that dies with it leaves it so). None: another copy has
        it, or it is settled. A message whose endpoint is disabled fails here."""

    def failing_since(self, endpoint_id: str) -> datetime | None:
        """Since when the endpoint's attempts have all failed (None: the last one was
        delivered, or it is gone), held until the unit of work ends: two failed attempts
        that end at once judge its health in turn (a delivered one clears it, waiting
        for the one that holds it)."""

    def finish(self, delivery: Delivery, answer: Answer, outcome: Outcome) -> None:
        """Record the attempt, settle or reschedule the message, and note the endpoint's
        health as ``outcome`` says (disabled: its waiting messages fail too)."""

    def attempts(self, endpoint_id: str, limit: int, before: int | None
                 ) -> list[AttemptRecord]:
        """The endpoint's attempts, newest first, with ids below ``before``."""

    def prune(self, older_than_s: float) -> int:
        """Delete settled messages (with their attempts) older than that; how many."""


class Secrets(Protocol):
    """Keeps secrets the service must read back (a webhook's signing secret) encrypted
    at rest."""

    def seal(self, secret: str) -> str: ...

    def open(self, sealed: str) -> str: ...


class WebhookSender(Protocol):
    """Sends one signed message to an endpoint (the Standard Webhooks headers)."""

    def check(self, url: str) -> None:
        """``UrlRefused`` or ``BadWebhook`` for a URL the service will not call."""

    def send(self, url: str, webhook_id: str, body: str, secret: str) -> Answer:
        """POST ``body``, signed with ``secret``; never raises for what the endpoint or
        the network did (that is the answer)."""


class WebhookQueue(Protocol):
    """Handed each webhook message when due, by the outbox's relay. May raise: the
    message then stays due."""

    def deliver(self, message_id: int, hand: int) -> None: ...


class OutboxWake(Protocol):
    """When a process's relay (``services.runtime.relay``) should look at the outbox."""

    def poke(self) -> None:
        """This process just committed something to the outbox."""

    def wait(self, at_most_s: float) -> bool:
        """Until there may be something to hand over, or ``at_most_s``; False when this
        process is not to relay now (another one does)."""

    def close(self) -> None: ...


class UnitOfWork(Protocol):
    """One transaction around one service call (cosmicpython): what is not committed
    when the block ends is rolled back."""

    @property
    def games(self) -> GameRepository: ...

    @property
    def lobby(self) -> LobbyRepository: ...

    @property
    def turns(self) -> TurnRepository: ...

    @property
    def listing(self) -> GameListing: ...

    @property
    def quotas(self) -> QuotaRepository: ...

    @property
    def keys(self) -> KeyRepository: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def webhooks(self) -> WebhookRepository: ...

    @property
    def players(self) -> PlayerRepository: ...

    @property
    def ratings(self) -> RatingRepository: ...

    @property
    def tickets(self) -> TicketRepository: ...

    @property
    def reviews(self) -> ReviewRepository: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...


class Reads(Protocol):
    """Where the read functions find games, without a unit of work."""

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """``at_least``: a version the caller knows the game has reached."""

    def fresh(self, game_id: str) -> Game | None:
        """The game with its seats as stored now (none held in memory)."""

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]: ...

    def events_of_round(self, game_id: str, round_no: int) -> list[StoredEvent]:
        """The round's own events; empty if none is known as that round's."""

    def watching(self, game_id: str) -> ContextManager[Callable[[float], None]]:
        """``wait(at_most_s)`` for the game's next move, from before the caller reads."""


class TurnScheduler(Protocol):
    """Handed each turn a committed move set in motion, by the outbox's relay
    (``handlers.outbox``). May raise: the message then stays in the outbox."""

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, resent: bool = False) -> None:
        """AI ``seat`` is to act at ``version``: have ``engine`` play it, after ``delay_s``.
        A scheduler with a queue lets the message expire a while after it is due, counted
        from now: the turn's due time in the store is no earlier (a late hand-over moves
        it), and the sweeper waits past it before it sends the turn again. A ``resent``
        turn (the sweeper's: it has waited longest) goes before every new one."""

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float,
                   resent: bool = False) -> None:
        """Human ``seat`` is to act at ``version`` and has ``timeout_s`` to do so."""
