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
from services.domain import ApiKey, Game, GameSummary, PlayedFor, Waiting

Decide = Callable[[View, str], Action]
"""An AI engine's choice for the seat of a view: ``decide(view, engine_name)``."""



@dataclass(frozen=True)
class Fallback:
    """What plays a seat the service plays itself (an AI that kept failing, a human out
    of time): ``name`` is recorded as the ``PlayedFor`` policy."""

    name: str
    decide: Callable[[View], Action]


StoredEvent = tuple[int, int, "Event | PlayedFor"]
"""(seq, version, event) of a game's stored event."""


class StoredState(NamedTuple):
    version: int
    state: State


class VersionConflict(Exception):
    """Another writer moved the game on since it was read (raised by ``save_actions``)."""


class GameRepository(Protocol):
    def add(self, game: Game, events: Sequence[Event]) -> None: ...

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """``at_least``: a version the caller knows the game has reached."""

    def known(self, game_id: str, version: int) -> Game | None:
        """The game as this process last saw it, if at ``version`` (no database read)."""

    def save_actions(self, game: Game, read_version: int, entries: list[LogEntry],
                     events: Sequence[Event | PlayedFor],
                     key: tuple[int, str, str] | None = None) -> None:
        """Append the log ``entries`` and ``events``, store ``game``'s new state and
        remember the Idempotency-Key ``key`` (seat, key, action text), if and only if
        nobody wrote since ``read_version`` (else ``VersionConflict``)."""

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]: ...

    def waiting(self, kind: str, since: datetime, limit: int = 500) -> list[Waiting]:
        """Active games waiting on a seat of ``kind`` since before ``since``."""

    def overdue_humans(self, now: datetime, limit: int = 500) -> list[Waiting]:
        """Active games whose human seat to act has run past its time limit."""

    def turn_deadline(self, game_id: str) -> datetime | None: ...

    def actions(self, game_id: str) -> list[str]:
        """The game's action log, as canonical action texts, in order."""

    def stored_state(self, game_id: str) -> StoredState | None:
        """The stored snapshot, decoded now, never from a cache."""

    def remembered(self, game_id: str, seat: int, key: str) -> tuple[str, int] | None:
        """(action text, resulting version) of an earlier action sent with ``key``."""

    def page(self, owner: str | None, status: str | None, limit: int,
             before: tuple[datetime, str] | None) -> list[GameSummary]:
        """``owner``'s games (None: the anonymous ones), newest first, strictly after the
        ``before`` (created_at, id) cursor."""

    def ids(self) -> list[str]: ...

    def active_count(self, owner: str | None) -> int:
        """How many of ``owner``'s games are under way."""

    def add_ai_time(self, owner: str, hour: datetime, seconds: float) -> None:
        """Count ``seconds`` of AI thinking for ``owner``'s games in the ``hour``."""

    def ai_time_since(self, owner: str, since: datetime) -> float:
        """The AI thinking time counted for ``owner``'s games in the hours from
        ``since``'s on."""


class KeyRepository(Protocol):
    def add(self, key: ApiKey, secret_hash: str) -> None: ...

    def by_hash(self, secret_hash: str) -> ApiKey | None:
        """The key whose secret hashes so, revoked or not."""

    def all(self) -> list[ApiKey]: ...

    def revoke(self, key_id: str, when: datetime) -> bool:
        """False: no such key."""


class UnitOfWork(Protocol):
    """One transaction around one service call (cosmicpython): what is not committed
    when the block ends is rolled back."""

    @property
    def games(self) -> GameRepository: ...

    @property
    def keys(self) -> KeyRepository: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    def commit(self) -> None: ...

    def rollback(self) -> None: ...


class Reads(Protocol):
    """Where the read functions find games, without a unit of work."""

    def get(self, game_id: str, at_least: int = 0) -> Game | None:
        """``at_least``: a version the caller knows the game has reached."""

    def events_after(self, game_id: str, after: int, limit: int) -> list[StoredEvent]: ...

    def events_of_round(self, game_id: str, round_no: int) -> list[StoredEvent]:
        """The round's own events; empty if none is known as that round's."""

    def watching(self, game_id: str) -> ContextManager[Callable[[float], None]]:
        """``wait(at_most_s)`` for the game's next move, from before the caller reads."""


class TurnScheduler(Protocol):
    """Told, after each committed move, whose turn it is now (``schedule_next``)."""

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, expires_s: float | None = None) -> None:
        """AI ``seat`` is to act at ``version``: have ``engine`` play it, after ``delay_s``
        (and not at all once ``expires_s`` have passed: the sweeper will send it again)."""

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float) -> None:
        """Human ``seat`` is to act at ``version`` and has ``timeout_s`` to do so."""
