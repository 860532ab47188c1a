"""A key's finished series for analysts and researchers (docs/ratings.md#export): every
round's deal, now that the series is over, its exchanges, action log, places and points,
and the series' seed. A series under way is never exported: its deal is secret."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable, Iterator

from engine import cards_of, round_deal
from services.domain import Caller, Game
from services.errors import KeyRequired, MissingScope
from services.ports import UnitOfWork

PAGE = 50  # series read at a time


def in_utc(moment: datetime) -> datetime:
    """``moment`` in UTC (without an offset, it is UTC already). OverflowError: a moment
    UTC cannot write (0001-01-01 at +14:00)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
            ).astimezone(timezone.utc)


def export(since: datetime | None, uow_factory: Callable[[], UnitOfWork],
           caller: Caller) -> Iterator[dict[str, Any]]:
    """The key's finished series, in the order they finished (from ``since``), one
    dict each, read a page at a time as the caller consumes them."""
    if caller.key is None:
        raise KeyRequired("an export is a client key's games: send the key")
    if not caller.may("games:read"):
        raise MissingScope("this key may not read games: it needs games:read")
    owner, after = caller.key.id, None
    since = None if since is None else in_utc(since)  # (stored in UTC)
    while True:
        with uow_factory() as uow:
            page = uow.listing.finished(owner, since, after, PAGE)
            games = [(uow.games.get(game_id), finished) for game_id, finished in page]
        for game, finished in games:
            if game is not None:
                yield series_json(game, finished)
        if len(page) < PAGE:
            return
        after = page[-1]


def series_json(game: Game, finished: datetime) -> dict[str, Any]:
    state = game.state
    entries = state.log_entries()
    return {
        "game_id": game.id, "preset": game.preset, "rules": state.rules.to_dict(),
        "seed": state.seed, "seeded": game.table.seeded, "finished_at": finished.isoformat(),
        "seats": [{"seat": s.seat, "kind": s.kind, "engine": s.engine,
                   "player_id": s.player if s.player_key == game.owner else None,
                   "name": s.name} for s in game.seats],
        "rounds": [{**r.to_dict(),
                    "deal": [[str(c) for c in cards_of(hand)]
                             for hand in round_deal(state, r.round_no)],
                    "exchanges": [{"giver": e.giver, "receiver": e.receiver,
                                   "cards": [str(c) for c in cards_of(e.mask)],
                                   "automatic": e.automatic} for e in r.exchanges],
                    "actions": [{"seat": e.seat, "action": str(e.action)}
                                for e in entries if e.round_no == r.round_no]}
                   for r in state.results],
        "outcome": None if state.outcome is None else {
            "scores": list(state.outcome.scores), "standing": list(state.outcome.standing),
            "winners": list(state.outcome.winners)},
    }
