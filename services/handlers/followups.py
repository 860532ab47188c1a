"""What a change of a game sets in motion, derived from the change alone: its creation,
a move or a seat change commits, in the same transaction, the next turn's message for
the outbox (``turn_message``) and the hooks for its owner's webhook endpoints
(``hooks_of``). Every handler that changes a game takes them from here (``follow_ups``),
so none reaches into another for them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from engine import Event, RoundEnded, SeriesEnded, redact
from engine.snapshot import event_to_dict
from services.domain import (
    Game, Hook, PlayedFor, ServiceEvent, TableEvent, TurnMessage, key_owning,
)


@dataclass(frozen=True)
class FollowUps:
    message: TurnMessage | None  # the next turn's, for the outbox
    hooks: list[Hook]  # for the owner's webhook endpoints


def follow_ups(game: Game, events: Sequence[Event | ServiceEvent], after: int,
               turn: bool = True, trace: str | None = None) -> FollowUps:
    """What the change that led ``game`` to ``events`` (numbered from ``after + 1``)
    sets in motion; ``turn``: a turn starts (not a seat change that leaves the turn as
    it was); ``trace``: the traceparent the next turn goes on with."""
    return FollowUps(turn_message(game, trace) if turn else None,
                     hooks_of(game, events, after, turn))


def turn_message(game: Game, trace: str | None = None) -> TurnMessage | None:
    """What the game's next turn needs set in motion: an AI seat to play (after the
    game's pace), a human seat's time limit; None when nothing is to wait for. ``trace``:
    the traceparent of the request it belongs to (a client's move, a creation: an AI's
    move starts no trace of its own, or an all-AI series would be one endless trace)."""
    seat = game.seat_to_act
    if seat is None:
        return None
    if seat.kind == "ai" and seat.engine is not None:
        return TurnMessage(game.id, game.version, seat.seat, seat.engine, game.pace_ms / 1000,
                           trace=trace)
    if seat.kind == "human" and game.turn_timeout_ms is not None:
        return TurnMessage(game.id, game.version, seat.seat, None, game.turn_timeout_ms / 1000,
                           trace=trace)
    return None


def hooks_of(game: Game, events: Sequence[Event | ServiceEvent], after: int,
             turn: bool = True) -> list[Hook]:
    """What a move (or a game's creation) that led to ``events`` tells webhooks: the
    service playing for a seat out of time, a round's or the series' end (as a spectator
    sees them), and the human seat to act next, with its time limit. ``events`` are
    numbered from ``after + 1``; ``turn``: a turn starts (not a seat change that leaves
    the turn as it was). Only a key's games tell anything: nobody else has
    endpoints (and the others' moves then write nothing more)."""
    if key_owning(game.owner) is None:
        return []
    hooks = []
    for seq, event in enumerate(events, start=after + 1):
        about = {"game_id": game.id, "version": game.version, "seq": seq,
                 "seeded": game.table.seeded}
        if isinstance(event, PlayedFor) and event.reason == "turn_timeout":
            hooks.append(Hook("seat.timed_out", {**about, **_fields(event.to_dict())}))
        elif isinstance(event, TableEvent) and event.type in ("seat_left", "seat_taken_over"):
            hooks.append(Hook(event.type.replace("_", ".", 1),
                              {**about, **_fields(event.to_dict())}))
        elif isinstance(event, (RoundEnded, SeriesEnded)):
            hooks.append(Hook("round.ended" if isinstance(event, RoundEnded) else "series.ended",
                              {**about, **_fields(event_to_dict(redact(event, None)))}))
    seat = game.seat_to_act
    if turn and seat is not None and seat.kind == "human":  # (as of the move's last event)
        hooks.append(Hook("seat.turn", {"game_id": game.id, "version": game.version,
                                        "seq": after + len(events), "seeded": game.table.seeded,
                                        "seat": seat.seat,
                                        "time_limit_ms": game.turn_timeout_ms}))
    return hooks

def _fields(event: dict[str, object]) -> dict[str, object]:
    return {name: value for name, value in event.items() if name != "type"}
