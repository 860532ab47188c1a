"""Shorthands for literal scenarios; positions come from ``tests/positions.py``.

Scenario hands are partial decks (no discard): card conservation is tested elsewhere.
"""

from __future__ import annotations

from typing import Any, Iterable

from engine import Action, Event, Play, State, apply, parse_action
from positions import bits, mask, position

__all__ = ["act", "bits", "mask", "of_type", "play", "position", "texts"]


def play(text: str) -> Play:
    return Play.from_str(text)



def act(state: State, *texts: str) -> tuple[State, list[Event]]:
    """Apply the actions written as text, each by the seat to act; all their events."""
    events: list[Event] = []
    for text in texts:
        state, new = apply(state, parse_action(text))
        events.extend(new)
    return state, events


def texts(actions: Iterable[Action]) -> list[str]:
    return [str(a) for a in actions]


def of_type(events: Iterable[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]
