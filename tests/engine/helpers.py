"""Build a State at a chosen position, and a few shorthands for literal scenarios.

A State is a NamedTuple: the helpers start a real series (``new_series``) and
``_replace`` the fields a scenario cares about. Hands are partial decks: card
conservation is tested elsewhere.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from engine import Action, Event, Play, Rules, State, apply, mask_of, new_series, parse_action, parse_cards


def mask(text: str) -> int:
    """The card mask of space-separated cards: mask("7H 7S"); "" is the empty hand."""
    return mask_of(parse_cards(text.split()))


def play(text: str) -> Play:
    return Play.from_str(text)


def bits(seats: Iterable[int]) -> int:
    out = 0
    for seat in seats:
        out |= 1 << seat
    return out


def position(
    preset: str = "classic",
    hands: Sequence[str] = ("", "", ""),
    *,
    to_act: int = 0,
    trick: Sequence[tuple[int, str]] = (),
    passed: Iterable[int] = (),
    reversed: bool = False,
    went_out: Sequence[int] = (),
    penalized: Iterable[int] = (),
    leader: int | None = None,
    seed: int = 0,
    **options: Any,
) -> State:
    """A state in the play phase: ``hands`` gives the seats (and so the player count),
    ``trick`` the (seat, play text) already on the table, oldest first."""
    rules = Rules.preset(preset, players=len(hands), **options)
    return new_series(rules, seed)._replace(
        hands=tuple(mask(h) for h in hands),
        to_act=to_act,
        trick=tuple((seat, Play.from_str(text)) for seat, text in trick),
        passed=bits(passed),
        discard=0,
        reversed=reversed,
        went_out=tuple(went_out),
        penalized=bits(penalized),
        leader=to_act if leader is None else leader,
    )


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
