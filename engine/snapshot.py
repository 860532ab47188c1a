"""A ``State`` (and an event) as plain JSON-ready data, and back: what a store keeps.

Only ints, strings, bools, lists and dicts, so any JSON column or file holds it, and
nothing in it can run code when read back (unlike pickle). Card sets stay masks;
plays and actions use their canonical text. ``SNAPSHOT_VERSION`` changes whenever
the layout does.
"""

from __future__ import annotations

from dataclasses import fields
from itertools import groupby
from typing import Any, Iterable

from engine.cards import parse_cards
from engine.events import (
    CardsGiven, Event, ExchangeDone, Passed, Played, Revolution, RoundEnded, RoundStarted,
    SeriesEnded, Skipped, TrickWon, WentOut,
)
from engine.outcome import Exchange, Outcome, Role, RoundResult, Termination
from engine.plays import Play, parse_action
from engine.rules import Rules
from engine.state import LogEntry, Phase, RoundLog, State

SNAPSHOT_VERSION = 1


def _exchange_to(e: Exchange) -> list[Any]:
    return [e.giver, e.receiver, e.mask, e.automatic]


def _exchange_from(data: list[Any]) -> Exchange:
    giver, receiver, mask, automatic = data
    return Exchange(int(giver), int(receiver), int(mask), bool(automatic))


def _result_to(r: RoundResult) -> dict[str, Any]:
    return {**r.to_dict(), "exchanges": [_exchange_to(e) for e in r.exchanges]}


def _result_from(d: dict[str, Any]) -> RoundResult:
    return RoundResult(d["round"], tuple(d["went_out"]), tuple(d["ranking"]),
                       tuple(Role(x) for x in d["roles"]), tuple(d["points"]),
                       tuple(d["penalized"]), tuple(_exchange_from(e) for e in d["exchanges"]))


def _log_to(log: RoundLog) -> list[list[Any]]:
    return [[e.round_no, e.seat, str(e.action)] for e in log]


def _log_from(data: list[list[Any]]) -> RoundLog:
    return tuple(LogEntry(r, s, parse_action(a)) for r, s, a in data)


def _play(text: str) -> Play:
    play = parse_action(text)
    if not isinstance(play, Play):
        raise ValueError(f"{text!r} is not a play")
    return play


def state_to_dict(state: State, *, logs: bool = True, rules: bool = True) -> dict[str, Any]:
    """``logs=False`` leaves the action logs out (the current round's and the earlier
    ones'), ``rules=False`` the rules: a store that keeps the action log and the rules
    elsewhere then writes a third as much per move, and no log that grows through a
    series; ``state_from_dict`` takes them back separately."""
    data: dict[str, Any] = {
        "version": SNAPSHOT_VERSION, "seed": state.seed, "round": state.round_no,
        "phase": state.phase.value, "hands": list(state.hands), "to_act": state.to_act,
        "trick": [[seat, str(play)] for seat, play in state.trick], "passed": state.passed,
        "discard": state.discard, "reversed": state.reversed, "went_out": list(state.went_out),
        "penalized": state.penalized,
        "roles": None if state.roles is None else [r.value for r in state.roles],
        "scores": list(state.scores), "pending": [list(p) for p in state.pending],
        "exchanges": [_exchange_to(e) for e in state.exchanges],
        "results": [_result_to(r) for r in state.results], "leader": state.leader,
    }
    if rules:
        data["rules"] = state.rules.to_dict()
    if logs:
        data["log"] = _log_to(state.log)
        data["past_logs"] = [_log_to(log) for log in state.past_logs]
    return data


def state_from_dict(d: dict[str, Any], entries: Iterable[LogEntry] | None = None,
                    rules: dict[str, Any] | None = None) -> State:
    """The state ``d`` holds. ``entries``: the game's action log up to that state, oldest
    first, for the logs ``d`` was written without (``state_to_dict(logs=False)``, or,
    from an earlier layout, the earlier rounds' logs alone); ``rules``: the rules (as
    ``Rules.to_dict``), if ``d`` was written without them."""
    if d.get("version") != SNAPSHOT_VERSION:
        raise ValueError(f"snapshot version {d.get('version')!r}, expected {SNAPSHOT_VERSION}")
    if "rules" in d:
        rules = d["rules"]
    elif rules is None:
        raise ValueError("this snapshot leaves the rules out: pass them")
    past, log = _logs(d, None if entries is None else tuple(entries))
    return State(
        rules=Rules.from_dict(rules), seed=d["seed"], round_no=d["round"],
        phase=Phase(d["phase"]), hands=tuple(d["hands"]), to_act=d["to_act"],
        trick=tuple((seat, _play(text)) for seat, text in d["trick"]), passed=d["passed"],
        discard=d["discard"], reversed=d["reversed"], went_out=tuple(d["went_out"]),
        penalized=d["penalized"],
        roles=None if d["roles"] is None else tuple(Role(r) for r in d["roles"]),
        scores=tuple(d["scores"]), pending=tuple((g, r, c) for g, r, c in d["pending"]),
        exchanges=tuple(_exchange_from(e) for e in d["exchanges"]),
        results=tuple(_result_from(r) for r in d["results"]), log=log,
        past_logs=past, leader=d["leader"])


def _logs(d: dict[str, Any],
          entries: tuple[LogEntry, ...] | None) -> tuple[tuple[RoundLog, ...], RoundLog]:
    """(the earlier rounds' logs, the current round's), from ``d`` where it holds them,
    else from ``entries``."""
    if "past_logs" in d:
        return tuple(_log_from(log) for log in d["past_logs"]), _log_from(d["log"])
    if entries is None:
        raise ValueError("this snapshot leaves the action logs out: pass the entries")
    past = round_logs(e for e in entries if e.round_no < d["round"])
    if "log" in d:
        return past, _log_from(d["log"])
    return past, tuple(e for e in entries if e.round_no == d["round"])


def round_logs(entries: Iterable[LogEntry]) -> tuple[RoundLog, ...]:
    """Log entries, oldest first, as one log per round."""
    return tuple(tuple(log) for _, log in groupby(entries, key=lambda e: e.round_no))


# --- events -----------------------------------------------------------------------------

_EVENT_TYPES: dict[str, type] = {
    "round_started": RoundStarted, "cards_given": CardsGiven, "exchange_done": ExchangeDone,
    "played": Played, "passed": Passed, "skipped": Skipped, "revolution": Revolution,
    "trick_won": TrickWon, "went_out": WentOut, "round_ended": RoundEnded,
    "series_ended": SeriesEnded,
}
_EVENT_NAMES = {cls: name for name, cls in _EVENT_TYPES.items()}


def _outcome_to(o: Outcome) -> dict[str, Any]:
    return {"termination": o.termination.value, "scores": list(o.scores),
            "standing": list(o.standing)}


def _outcome_from(d: dict[str, Any]) -> Outcome:
    return Outcome(Termination(d["termination"]), tuple(d["scores"]), tuple(d["standing"]))


def _value_to(name: str, value: Any) -> Any:
    if name == "play":
        return str(value)
    if name == "cards":
        return None if value is None else [str(c) for c in value]
    if name == "result":
        return _result_to(value)
    if name == "outcome":
        return _outcome_to(value)
    return value


def _value_from(name: str, value: Any) -> Any:
    if name == "play":
        return _play(value)
    if name == "cards":
        return None if value is None else parse_cards(value)
    if name == "result":
        return _result_from(value)
    if name == "outcome":
        return _outcome_from(value)
    return value


def event_to_dict(event: Event) -> dict[str, Any]:
    """``{"type": "played", "seat": 2, "play": "7C 7H"}`` and so on for every event."""
    data = {"type": _EVENT_NAMES[type(event)]}
    for f in fields(event):
        data[f.name] = _value_to(f.name, getattr(event, f.name))
    return data


def event_from_dict(data: dict[str, Any]) -> Event:
    cls = _EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        raise ValueError(f"unknown event type {data.get('type')!r}")
    values = {f.name: _value_from(f.name, data[f.name]) for f in fields(cls)}
    return cls(**values)  # type: ignore[no-any-return]
