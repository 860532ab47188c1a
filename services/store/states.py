"""What a process keeps of the games it has seen, between requests: an object the
composition root makes once per process and hands to the read and write sides.

A read brings the newest state known here up to date by replaying the few actions since
(another process may have played them): much cheaper than decoding the stored snapshot,
which is read only when the gap is wide. The change feed's notices bring it up to date
with no read at all (``bring_up_to_date``)."""

from __future__ import annotations

from typing import NamedTuple

from engine.state import State
from services.domain import Game, Seat, Table, advanced
from services.store.feed import Notice
from services.versioned import VersionedCache

class Known(NamedTuple):
    version: int
    events: int  # the game's event count at that version
    state: State
    seen_at: int = -1  # the change feed's mark taken before it was read or written


class Seating(NamedTuple):
    """What a game is created with and changes only with its seats (``seated``): its
    preset, seats, pace, owner and table."""

    preset: str
    seats: tuple[Seat, ...]
    pace_ms: int
    turn_timeout_ms: int | None
    owner: str | None
    ai_seconds_per_hour: int | None
    seated: int = 0
    table: Table = Table()
    max_active_games: int | None = None


class GameStates:
    """The newest state seen of each game, and each game's seating, least recently used
    first out."""

    def __init__(self, states: int = 4096, seatings: int = 8192,
                 replay_at_most: int = 32, max_bytes: int | None = None) -> None:
        """``replay_at_most``: more actions than this to catch up with, and a read takes
        the stored snapshot instead; ``max_bytes``: the states held, at most (a finished
        long series weighs hundreds of times a new game: ``weight``)."""
        self._states: VersionedCache[str, Known] = VersionedCache(states, max_bytes, weight)
        self._seatings: VersionedCache[str, Seating] = VersionedCache(seatings)
        # The change feed's mark at each game's last seat change it announced: a seating
        # read before it may be the one before.
        self._reseated: VersionedCache[str, int] = VersionedCache(seatings)
        self.replay_at_most = replay_at_most

    def state(self, game_id: str) -> Known | None:
        return self._states.get(game_id)

    def seating(self, game_id: str) -> Seating | None:
        return self._seatings.get(game_id)

    def seat(self, game_id: str, seating: Seating, seen_at: int = -1) -> None:
        """Keep ``seating``, read or written after the feed's mark ``seen_at``, unless a
        newer one (more seat changes) is held, or the feed has announced a seat change
        of the game since ``seen_at`` (that read may have come just before it)."""
        if seen_at < (self._reseated.get(game_id) or -1):
            return
        self._seatings.put_if(game_id, seating, lambda held, new: held.seated <= new.seated)

    def unseat(self, game_id: str) -> None:
        """Forget the game's seating: its seats changed."""
        self._seatings.pop_if(game_id, lambda held: True)

    def remember(self, game_id: str, known: Known) -> None:
        """Keep ``known`` unless a newer state of the game is known already (or the same
        one, seen later: the feed vouches for the one seen last)."""
        self._states.put_if(game_id, known, _older)

    def game(self, game_id: str, version: int) -> Game | None:
        """The game as this process last saw it, if that was at ``version``: no database
        read, and no promise that the game is still there (a move writes on it only on
        condition that it is)."""
        seating, known = self.seating(game_id), self.state(game_id)
        if seating is None or known is None or known.version != version:
            return None
        return game_of(game_id, seating, known)

    @property
    def bytes(self) -> int:
        """The states held, in estimated bytes."""
        return self._states.bytes

    def forget(self, *, seatings: bool = True) -> None:
        """Forget every state (and seating) held: the next reads go to the database."""
        self._states.clear()
        if seatings:
            self._seatings.clear()

    def caught_up(self, known: Known | None, version: int, since: list[str]) -> State | None:
        """The known state with the actions ``since`` applied, if they take it exactly to
        ``version`` (and are few enough to be worth it)."""
        if (known is None or known.version + len(since) != version
                or len(since) > self.replay_at_most):
            return None
        return advanced(known.state, since)

    def bring_up_to_date(self, notice: Notice, mark: int) -> None:
        """A move announced by the change feed (whichever process made it): a state held
        here at the version it starts from moves on with it, no database read needed."""
        if notice.reseated:  # its seats changed: read them again
            self._reseated.put(notice.game_id, mark)
            self.unseat(notice.game_id)
        known = self.state(notice.game_id)
        if known is None or known.version != notice.after or notice.actions is None:
            return
        state = advanced(known.state, notice.actions, checked=False)  # committed already
        self.remember(notice.game_id, Known(notice.version, notice.events, state, mark))


def weight(known: Known) -> int:
    """A state's bytes in memory, estimated: its log entries dominate (about 90 bytes
    each, measured on a finished 100-round series), then its round results."""
    state = known.state
    entries = len(state.log) + sum(len(log) for log in state.past_logs)
    return 2_000 + 100 * entries + 400 * len(state.results)


def _older(held: Known, new: Known) -> bool:
    """(At one version, more events are newer: a seat change added them.)"""
    return (held.version, held.events, held.seen_at) < (new.version, new.events, new.seen_at)


def seating_of(game: Game) -> Seating:
    return Seating(
        preset=game.preset,
        seats=game.seats,
        pace_ms=game.pace_ms,
        turn_timeout_ms=game.turn_timeout_ms,
        owner=game.owner,
        ai_seconds_per_hour=game.ai_seconds_per_hour,
        seated=game.seated,
        table=game.table,
        max_active_games=game.max_active_games,
    )


def game_of(game_id: str, seating: Seating, known: Known) -> Game:
    return Game(
        id=game_id,
        preset=seating.preset,
        seats=seating.seats,
        state=known.state,
        version=known.version,
        events=known.events,
        pace_ms=seating.pace_ms,
        turn_timeout_ms=seating.turn_timeout_ms,
        owner=seating.owner,
        ai_seconds_per_hour=seating.ai_seconds_per_hour,
        seated=seating.seated,
        table=seating.table,
        max_active_games=seating.max_active_games,
    )
