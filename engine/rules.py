"""Rules options: one frozen, validated dataclass; presets are named values of it.

Every option of ``shared/rules/RULES.md`` is a field, with its description in
the field metadata so that a client can build a settings screen from
``describe_options()``. ``Rules.preset("club", straights=True)`` looks a preset
up by name and applies overrides on top of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import Enum
from functools import lru_cache
from typing import Any, Mapping

from engine.errors import InvalidRules, UnknownOption, UnknownPreset


class FirstLead(str, Enum):
    """Who leads the first round of a series."""

    THREE_OF_CLUBS = "three_of_clubs"  # the holder of the 3 of clubs, free to lead anything
    FIRST_SEAT = "first_seat"  # seat 0, free to lead anything
    THREE_OF_DIAMONDS = "three_of_diamonds"  # the holder of the 3 of diamonds (UECda)


class LaterLead(str, Enum):
    """Who leads the rounds after the first."""

    TROU = "trou"  # the previous round's Trou du cul
    PRESIDENT = "president"  # the previous round's Président
    THREE_OF_DIAMONDS = "three_of_diamonds"  # its holder once the exchange is done (UECda)


MOST_SEATS = 8  # the largest table any ruleset allows
MOST_ROUNDS = 100  # the longest series


def _opt(default: Any, doc: str) -> Any:
    return field(default=default, metadata={"doc": doc})


@dataclass(frozen=True, slots=True)
class Rules:
    players: int = _opt(4, "Number of seats, 3 to 8 (at most max_players).")
    max_players: int = _opt(8, "Largest table this ruleset allows (cardverse: 6).")
    jokers: int = _opt(0, "Jokers added to the 52 cards: 0, 1 (JR) or 2 (JR, JB).")
    straights: bool = _opt(False, "Straights: 3+ consecutive cards of one suit, 3 up to 2, no wrap.")
    revolution: bool = _opt(False, "A quad (triple + joker too) reverses the order at once.")
    straight_revolution: bool = _opt(
        False, "A straight of 5 or more cards reverses the order too (needs straights and "
        "revolution; UECda).")
    straights_above: bool = _opt(
        False, "A straight beats another only when every card is stronger: its lowest above "
        "the other's highest (during a revolution, its highest below the other's lowest), "
        "not by its highest card alone (UECda).")
    spade_three_beats_joker: bool = _opt(
        False, "A single 3 of spades beats the single joker, in either order, and ends the "
        "trick (needs a joker; UECda).")
    play_on_own: bool = _opt(
        False, "A trick ends only when every player still holding cards has passed, the "
        "last to play included: once all the others have passed, he may play again on his "
        "own play (UECda).")
    suit_lock: bool = _opt(
        False, "The suit lock (shibari): a play with exactly the suits of the play it beats "
        "locks the trick to those suits until it ends; a single joker lifts it (UECda).")
    jokers_extend_straights: bool = _opt(
        False, "A joker may extend a straight below the 3 or above the 2: JR-3H-4H, "
        "AH-2H-JR (needs straights and a joker; UECda).")
    five_card_groups: bool = _opt(
        False, "Four of a kind and a joker make a 5-card group (needs a joker; UECda).")
    lead_pass: bool = _opt(
        False, "The leader may pass too: he is out of the trick and the next seat leads; "
        "when every seat has passed an empty trick, the last to have played leads again "
        "(UECda's server).")
    pass_limit: int = _opt(
        0, "After N passes in a row in a round (trick ends do not break the run), the "
        "seats still holding cards take the places left by lot and the round ends "
        "(UECda's endless-passing rule, 20); 0: never, at most 100.")
    equal_match: bool = _opt(False, "A play may equal the top play instead of beating it.")
    skip_on_match: bool = _opt(
        False, "'Ça passe ou ça casse': a group equal in rank to the previous play makes the "
        "next player lose the turn (needs equal_match).")
    twos_close: bool = _opt(False, "A group of 2s (3s during a revolution) closes the trick.")
    eights_close: bool = _opt(
        False, "A group of 8s closes the trick; with straights, a straight through an 8 too.")
    exchange: bool = _opt(
        True, "From round 2: Trou du cul gives his 2 best cards to the Président, who gives 2 "
        "back; Vice-Trou and Vice-Président 1 card, from 4 players.")
    no_finish_on_two: bool = _opt(
        False, "A player whose last play holds the strongest rank (a 2; a 3 during a "
        "revolution; a joker) becomes Trou du cul.")
    deal_from_president: bool = _opt(
        False, "From round 2 the deal starts at the Président's seat, one card at a time, "
        "so he and the seats after him hold one card more; otherwise at seat 0 (UECda).")
    reset_every: int = _opt(
        0, "Roles reset every N rounds: rounds 1, N+1, 2N+1 … are played as round 1, "
        "without roles or exchange (UECda's init games); 0: never.")
    first_lead: FirstLead = _opt(FirstLead.THREE_OF_CLUBS, "Who leads round 1.")
    later_lead: LaterLead = _opt(LaterLead.TROU, "Who leads the rounds after the first.")
    rounds: int = _opt(1, "Rounds in the series, 1 to 100.")

    def __post_init__(self) -> None:
        _validate(self)

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        try:
            base = PRESETS[name]
        except KeyError:
            raise UnknownPreset(f"unknown preset {name!r}; known: {', '.join(PRESETS)}") from None
        return base.with_options(**overrides)

    def with_options(self, **overrides: Any) -> Rules:
        """A copy with some options changed, validated, values coerced from JSON types."""
        known = {f.name: f for f in fields(Rules)}
        for name in overrides:
            if name not in known:
                raise UnknownOption(f"unknown rules option {name!r}")
        coerced = {name: _coerce(known[name].type, name, value) for name, value in overrides.items()}
        return replace(self, **coerced)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready options (enums as their values): a new dict each call, made from
        one built once per set of rules (this runs on every move and every view)."""
        return dict(_options_of(self))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        return cls().with_options(**data)

    def differences(self, other: Rules) -> dict[str, Any]:
        """The options whose value here differs from ``other`` (e.g. from a preset)."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: v for k, v in mine.items() if theirs[k] != v}


_FIELD_NAMES = tuple(f.name for f in fields(Rules))
_BOOL_TYPES = ("bool",)
_INT_TYPES = ("int",)


def _coerce(type_name: Any, name: str, value: Any) -> Any:
    if type_name in _BOOL_TYPES:
        if not isinstance(value, bool):
            raise InvalidRules(f"option {name} must be true or false, not {value!r}")
        return value
    if type_name in _INT_TYPES:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRules(f"option {name} must be an integer, not {value!r}")
        return value
    enum_type: type[Enum] = FirstLead if type_name == "FirstLead" else LaterLead
    try:
        return enum_type(value)
    except ValueError:
        allowed = ", ".join(str(m.value) for m in enum_type)
        raise InvalidRules(f"option {name} must be one of {allowed}, not {value!r}") from None


@lru_cache(maxsize=256)
def _options_of(rules: Rules) -> dict[str, Any]:
    """Not dataclasses.asdict, which deep-copies. Shared: callers get a copy."""
    out: dict[str, Any] = {}
    for name in _FIELD_NAMES:
        value = getattr(rules, name)
        out[name] = value.value if isinstance(value, Enum) else value
    return out


def _validate(r: Rules) -> None:
    def need(ok: bool, message: str) -> None:
        if not ok:
            raise InvalidRules(message)

    for f in fields(r):
        value = getattr(r, f.name)
        if f.type in _BOOL_TYPES:
            need(isinstance(value, bool), f"option {f.name} must be a bool, not {value!r}")
        elif f.type in _INT_TYPES:
            need(isinstance(value, int) and not isinstance(value, bool),
                 f"option {f.name} must be an int, not {value!r}")
    need(isinstance(r.first_lead, FirstLead), f"first_lead must be a FirstLead, not {r.first_lead!r}")
    need(isinstance(r.later_lead, LaterLead), f"later_lead must be a LaterLead, not {r.later_lead!r}")
    need(3 <= r.max_players <= MOST_SEATS,
         f"max_players must be 3 to {MOST_SEATS}, not {r.max_players}")
    need(3 <= r.players <= r.max_players,
         f"players must be 3 to {r.max_players} for this ruleset, not {r.players}")
    need(0 <= r.jokers <= 2, f"jokers must be 0, 1 or 2, not {r.jokers}")
    need(1 <= r.rounds <= MOST_ROUNDS, f"rounds must be 1 to {MOST_ROUNDS}, not {r.rounds}")
    need(0 <= r.reset_every <= 100, f"reset_every must be 0 to 100, not {r.reset_every}")
    need(0 <= r.pass_limit <= 100, f"pass_limit must be 0 to 100, not {r.pass_limit}")
    need(not r.straight_revolution or (r.straights and r.revolution),
         "straight_revolution needs straights and revolution")
    need(not r.spade_three_beats_joker or r.jokers >= 1,
         "spade_three_beats_joker needs a joker (jokers 1 or 2)")
    need(not r.jokers_extend_straights or (r.straights and r.jokers >= 1),
         "jokers_extend_straights needs straights and a joker")
    need(not r.five_card_groups or r.jokers >= 1,
         "five_card_groups needs a joker (jokers 1 or 2)")
    need(not r.skip_on_match or r.equal_match,
         "skip_on_match needs equal_match: a play can only match the previous one when "
         "equalling is allowed")


def describe_options() -> list[dict[str, Any]]:
    """Every option with its type, default, allowed values and description."""
    defaults = Rules()
    out: list[dict[str, Any]] = []
    for f in fields(Rules):
        default = getattr(defaults, f.name)
        entry: dict[str, Any] = {
            "name": f.name,
            "type": f.type if f.type in (*_BOOL_TYPES, *_INT_TYPES) else "enum",
            "default": default.value if isinstance(default, Enum) else default,
            "description": f.metadata["doc"],
        }
        if isinstance(default, Enum):
            entry["choices"] = [m.value for m in type(default)]
        out.append(entry)
    return out


# Presets as RULES.md reads the sources. Where a source is silent the value is
# this project's decision, recorded in docs/rules.md.
PRESETS: dict[str, Rules] = {
    # 003: 3-8 players, no variant, 3 of clubs opens, Trou du cul leads later rounds.
    "classic": Rules(rounds=5),
    # 004: CardVerse v1.1.0: 3-6 players, revolution on, no equal match, first seat opens.
    "cardverse": Rules(max_players=6, revolution=True, first_lead=FirstLead.FIRST_SEAT),
    # 000/001/002: equal match and 2s close; jokers, straights, revolution, 8s are table options.
    "club": Rules(equal_match=True, twos_close=True),
    # Every trick option at once: the engine's hardest case (and the benchmark's "full").
    "full": Rules(jokers=2, straights=True, revolution=True, equal_match=True,
                  twos_close=True, eights_close=True),
    # 003 with its three listed variants announced (skip on match implies equalling).
    "classic-variants": Rules(rounds=5, revolution=True, equal_match=True, skip_on_match=True,
                              no_finish_on_two=True),
    # UECda's computer Daifugō (shared/rules/UECDA.md §8): five seats, one joker, the lock.
    # A series of 100 rounds is one of its 100-game blocks, the first an init game.
    "uecda": Rules(players=5, max_players=5, jokers=1, straights=True, straights_above=True,
                   jokers_extend_straights=True, revolution=True, straight_revolution=True,
                   five_card_groups=True, spade_three_beats_joker=True, suit_lock=True,
                   eights_close=True, play_on_own=True, lead_pass=True, pass_limit=20,
                   deal_from_president=True, first_lead=FirstLead.THREE_OF_DIAMONDS,
                   later_lead=LaterLead.THREE_OF_DIAMONDS, rounds=100),
}
