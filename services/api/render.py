"""Engine values as the API's JSON: one function per shape, no I/O; a game's JSON is
rendered once per game, version and seat (``game_response``)."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from engine import (
    PRESETS, ExchangeView, Outcome, Rules, View, describe_options,
)
from engine.legal import suit_letters
from engine.snapshot import event_to_dict
from services.domain import SERVICE_EVENTS, GameSummary, Seat
from services.views import EventView, GameView
from services.jsoncodec import dumps_line
from services.versioned import VersionedCache


def _exchange(e: ExchangeView) -> dict[str, Any]:
    return {"giver": e.giver, "receiver": e.receiver, "count": e.count, "automatic": e.automatic,
            "cards": None if e.cards is None else [str(c) for c in e.cards]}


def _outcome(o: Outcome | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {"termination": o.termination.value, "scores": list(o.scores),
            "standing": list(o.standing), "winners": list(o.winners)}


def view_json(v: View) -> dict[str, Any]:
    return {
        "seat": v.seat, "round": v.round_no, "rounds": v.rules.rounds, "phase": v.phase.value,
        "to_act": v.to_act, "hand": [str(c) for c in v.hand], "hand_sizes": list(v.hand_sizes),
        "trick": [{"seat": s, "play": str(p)} for s, p in v.trick],
        "discard": [str(c) for c in v.discard], "reversed": v.reversed,
        "locked_suits": list(suit_letters(v.lock)),
        "passed": list(v.passed), "went_out": list(v.went_out), "penalized": list(v.penalized),
        "roles": None if v.roles is None else [r.value for r in v.roles],
        "scores": list(v.scores), "leader": v.trick_leader,
        "pending": [{"giver": g, "receiver": r, "count": c} for g, r, c in v.pending],
        "exchanges": [_exchange(e) for e in v.exchanges],
        "results": [r.to_dict() for r in v.results],
        "legal_actions": [str(a) for a in v.legal_actions], "outcome": _outcome(v.outcome),
    }


Rendered = VersionedCache[tuple[str, int, int, "int | None"], bytes]


def rendered_cache(max_bytes: int | None) -> Rendered:
    """A seat's view at a version and seat change never changes: its JSON is rendered
    once per process, and kept while there is room (``max_bytes``)."""
    return VersionedCache(4096, max_bytes, lambda body: len(body) + 200)


def game_response(game: GameView, rendered: Rendered, if_none_match: str | None = None
                  ) -> Response:
    """The game as ``GameOut`` JSON, or ``304`` when the client holds it already (its
    ``ETag`` names the version, the seat changes and the seat: that body never
    changes). ``game_json``
    already gives exactly what the schema would (a test checks it on views of every
    kind), so the hot path skips pydantic's output pass."""
    tag = f'"{game.version}.{game.seated}-{"spectator" if game.seat is None else game.seat}"'
    headers = [("ETag", tag), ("Cache-Control", "private, no-cache"), ("Vary", "Authorization")]
    if if_none_match is not None and not _tags(if_none_match).isdisjoint((tag, "*")):
        return Response(status=304, headers=headers)
    key = (game.game_id, game.version, game.seated, game.seat)
    body = rendered.get(key)
    if body is None:
        body = dumps_line(game_json(game))
        rendered.put(key, body)
    return Response(body, mimetype="application/json", headers=headers)


def _tags(if_none_match: str) -> set[str]:
    """The entity tags an If-None-Match names (weak ones compare as strong: RFC 9110's
    weak comparison, which If-None-Match uses)."""
    return {t.strip().removeprefix("W/") for t in if_none_match.split(",")}


def cached_for_good(response: dict[str, Any] | Response, immutable: bool) -> Response:
    """What never changes again (a finished round, a finished series' rounds) says so."""
    response = response if isinstance(response, Response) else jsonify(response)
    response.headers["Cache-Control"] = ("private, max-age=31536000, immutable" if immutable
                                         else "private, no-cache")
    response.vary.add("Authorization")
    return response


def game_json(game: GameView) -> dict[str, Any]:
    return {"game_id": game.game_id, "version": game.version, "status": game.status,
            "preset": game.preset, "rules": game.view.rules.to_dict(),
            "seats": [seat_json(s) for s in game.seats], "visibility": game.visibility,
            "hints": game.hints, "seeded": game.seeded,
            "pace_ms": game.pace_ms, "turn_timeout_ms": game.turn_timeout_ms,
            "view": view_json(game.view)}


def seat_json(seat: Seat) -> dict[str, Any]:
    """A seat as anybody may see it: no token, no player id."""
    return {"seat": seat.seat, "kind": seat.kind, "engine": seat.engine, "name": seat.name,
            "connected": seat.connected}


def rounds_json(view: View) -> list[dict[str, Any]]:
    """Each finished round: places, roles, points, its exchanges (their cards for the
    seats they were between only), and its action log (gifts the caller may not see show
    as null)."""
    actions: dict[int, list[dict[str, Any]]] = {}
    for h in view.history:
        actions.setdefault(h.round_no, []).append(
            {"seat": h.seat, "action": None if h.action is None else str(h.action)})
    return [{**r.to_dict(), "exchanges": [_exchange(e) for e in exchanges],
             "actions": actions.get(r.round_no, [])}
            for r, exchanges in zip(view.results, view.result_exchanges)]


def summary_json(g: GameSummary) -> dict[str, Any]:
    return {"game_id": g.game_id, "status": g.status, "preset": g.preset,
            "version": g.version, "created_at": g.created_at.isoformat(),
            "seats": [seat_json(s) for s in g.seats], "seeded": g.seeded}


def rules_json() -> dict[str, Any]:
    return {"presets": {name: rules.to_dict() for name, rules in PRESETS.items()},
            "options": describe_options(), "defaults": Rules().to_dict()}


def event_json(e: EventView) -> dict[str, Any]:
    body = e.event.to_dict() if isinstance(e.event, SERVICE_EVENTS) else event_to_dict(e.event)
    return {"seq": e.seq, "version": e.version, **body}
