"""A series the engine played, as a UECda game log (UECDA.md §7): one game per round.

The log's players are the engine's seats, unless ``seating`` says where each player sat
in each round (a UECda server reseats every three games). The round's roles give
``class``; its deal ``dealt``; its exchanges ``changed``; the hands once the exchange is
done ``original``; its plays ``play``; its places ``result``.
"""

from __future__ import annotations

from typing import Sequence

from engine import Play, RoundResult, State, round_deal
from engine.outcome import roles_by_place
from workers.uecda.log import LoggedGame, MatchLog
from workers.uecda.notation import move_to_token


def series_log(state: State, names: Sequence[str],
               seating: Sequence[Sequence[int]] | None = None) -> MatchLog:
    """The finished rounds of ``state`` as a log; ``seating[r][p]``: the engine seat of
    player ``p`` in round ``r + 1`` (default: player p at seat p)."""
    n = state.players
    games = []
    for result in state.results:
        seat_of = list(seating[result.round_no - 1]) if seating else list(range(n))
        games.append(_game(state, result, seat_of))
    return MatchLog(tuple(names), tuple(games))


def _game(state: State, result: RoundResult, seat_of: list[int]) -> LoggedGame:
    n = state.players
    dealt = round_deal(state, result.round_no)
    changed, hands = [0] * n, list(dealt)
    for exchange in result.exchanges:
        changed[exchange.giver] |= exchange.mask
        hands[exchange.giver] ^= exchange.mask
        hands[exchange.receiver] |= exchange.mask
    roles = state.results[result.round_no - 2].roles if any(changed) else None
    by_place = roles_by_place(n)
    classes = [by_place.index(roles[s]) for s in range(n)] if roles else list(range(n))
    moves = [move_to_token(e.action) for e in (*state.past_logs, state.log)[result.round_no - 1]
             if isinstance(e.action, Play)]
    place = {seat: p for p, seat in enumerate(result.ranking)}

    def per_player(values: Sequence[int]) -> tuple[int, ...]:
        return tuple(values[seat_of[p]] for p in range(n))

    return LoggedGame(
        number=result.round_no - 1,
        classes=per_player(classes) if roles else tuple(range(n)),
        seats=tuple(seat_of), dealt=per_player(dealt), changed=per_player(changed),
        original=per_player(hands), moves=tuple(moves),
        result=tuple(place[seat_of[p]] for p in range(n)))
