"""Rules options and presets as docs/rules.md lists them; every rejected combination."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from engine import (
    PRESETS, FirstLead, InvalidRules, LaterLead, Rules, UnknownOption, UnknownPreset,
    describe_options,
)

# docs/rules.md, "Options": the defaults
DEFAULTS = {
    "players": 4, "max_players": 8, "jokers": 0, "straights": False, "revolution": False,
    "straight_revolution": False, "straights_above": False, "spade_three_beats_joker": False,
    "play_on_own": False, "suit_lock": False, "jokers_extend_straights": False,
    "five_card_groups": False, "deal_from_president": False, "reset_every": 0,
    "lead_pass": False, "pass_limit": 0, "equal_match": False, "skip_on_match": False, "twos_close": False, "eights_close": False,
    "exchange": True, "no_finish_on_two": False, "first_lead": "three_of_clubs",
    "later_lead": "trou", "rounds": 1,
}

# docs/rules.md, "Presets": how each differs from the defaults
PRESET_DIFFERENCES: dict[str, dict[str, Any]] = {
    "classic": {"rounds": 5},
    "cardverse": {"max_players": 6, "revolution": True, "first_lead": "first_seat"},
    "club": {"equal_match": True, "twos_close": True},
    "full": {"jokers": 2, "straights": True, "revolution": True, "equal_match": True,
             "twos_close": True, "eights_close": True},
    "classic-variants": {"rounds": 5, "revolution": True, "equal_match": True,
                         "skip_on_match": True, "no_finish_on_two": True},
    # UECDA.md §8, option by option
    "uecda": {"players": 5, "max_players": 5, "jokers": 1, "straights": True,
              "straights_above": True, "jokers_extend_straights": True, "revolution": True,
              "straight_revolution": True, "five_card_groups": True,
              "spade_three_beats_joker": True, "suit_lock": True, "eights_close": True,
              "play_on_own": True, "lead_pass": True, "pass_limit": 20,
              "deal_from_president": True, "first_lead": "three_of_diamonds",
              "later_lead": "three_of_diamonds", "rounds": 100},
}


def test_defaults_match_the_docs() -> None:
    assert Rules().to_dict() == DEFAULTS


def test_the_presets_are_exactly_the_documented_ones() -> None:
    assert set(PRESETS) == set(PRESET_DIFFERENCES)


@pytest.mark.parametrize("name, differences", PRESET_DIFFERENCES.items())
def test_preset_by_name_matches_the_docs(name: str, differences: dict[str, Any]) -> None:
    rules = Rules.preset(name)
    assert rules.differences(Rules()) == differences
    assert rules.to_dict() == {**DEFAULTS, **differences}


@pytest.mark.parametrize("name", PRESET_DIFFERENCES)
def test_overrides_apply_on_top_of_a_preset(name: str) -> None:
    rules = Rules.preset(name, players=5, straights=True, later_lead="president")
    assert (rules.players, rules.straights, rules.later_lead) == (5, True, LaterLead.PRESIDENT)
    untouched = {"players", "straights", "later_lead"}
    base = Rules.preset(name).to_dict()
    assert {k: v for k, v in rules.to_dict().items() if k not in untouched} == \
        {k: v for k, v in base.items() if k not in untouched}


def test_enum_options_accept_their_json_values() -> None:
    rules = Rules.preset("classic", first_lead="first_seat", later_lead="president")
    assert rules.first_lead is FirstLead.FIRST_SEAT
    assert rules.later_lead is LaterLead.PRESIDENT
    assert Rules.preset("classic", first_lead=FirstLead.FIRST_SEAT) == rules.with_options(later_lead="trou")


@pytest.mark.parametrize("preset, overrides, words", [
    ("classic", {"skip_on_match": True}, ["skip_on_match", "equal_match"]),
    ("cardverse", {"skip_on_match": True}, ["skip_on_match", "equal_match"]),
    ("classic-variants", {"equal_match": False}, ["skip_on_match", "equal_match"]),
    ("classic", {"players": 2}, ["players", "2"]),
    ("classic", {"players": 9}, ["players", "8", "9"]),
    ("cardverse", {"players": 7}, ["players", "6", "7"]),  # 004: 3-6 players
    ("classic", {"max_players": 9}, ["max_players", "9"]),
    ("classic", {"max_players": 3}, ["players", "3", "4"]),  # 4 seats, 3 at most
    ("classic", {"jokers": 3}, ["jokers", "3"]),
    ("classic", {"jokers": -1}, ["jokers", "-1"]),
    ("classic", {"rounds": 0}, ["rounds", "0"]),
    ("classic", {"rounds": 101}, ["rounds", "101"]),
    ("classic", {"straights": "yes"}, ["straights", "yes"]),
    ("classic", {"revolution": 1}, ["revolution", "1"]),
    ("classic", {"exchange": None}, ["exchange", "None"]),
    ("classic", {"players": "4"}, ["players", "4"]),
    ("classic", {"rounds": 2.0}, ["rounds", "2.0"]),
    ("classic", {"jokers": True}, ["jokers", "True"]),
    ("classic", {"first_lead": "dealer"}, ["first_lead", "dealer", "three_of_clubs", "first_seat"]),
    ("classic", {"later_lead": "neutre"}, ["later_lead", "neutre", "trou", "president"]),
    ("classic", {"straight_revolution": True}, ["straight_revolution", "straights"]),
    ("full", {"straight_revolution": True, "revolution": False},
     ["straight_revolution", "revolution"]),
    ("classic", {"spade_three_beats_joker": True}, ["spade_three_beats_joker", "joker"]),
    ("full", {"spade_three_beats_joker": True, "jokers": 0}, ["spade_three_beats_joker"]),
    ("classic", {"five_card_groups": True}, ["five_card_groups", "joker"]),
    ("classic", {"reset_every": -1}, ["reset_every", "-1"]),
    ("classic", {"reset_every": 101}, ["reset_every", "101"]),
    ("classic", {"pass_limit": 101}, ["pass_limit", "101"]),
    ("classic", {"jokers_extend_straights": True, "jokers": 1},
     ["jokers_extend_straights", "straights"]),
    ("classic", {"jokers_extend_straights": True, "straights": True},
     ["jokers_extend_straights", "joker"]),
])
def test_rejected_combinations(preset: str, overrides: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(InvalidRules) as info:
        Rules.preset(preset, **overrides)
    assert info.value.code == "invalid_rules"
    assert type(info.value) is InvalidRules
    assert all(word in info.value.message for word in words), info.value.message


@pytest.mark.parametrize("fields", [
    {"players": 2}, {"jokers": 3}, {"rounds": 0}, {"skip_on_match": True},
    {"straights": "yes"}, {"max_players": 9},
])
def test_direct_construction_is_validated_too(fields: dict[str, Any]) -> None:
    with pytest.raises(InvalidRules):
        Rules(**fields)


@pytest.mark.parametrize("preset, overrides", [
    ("classic", {"players": 3}), ("classic", {"players": 8}), ("cardverse", {"players": 6}),
    ("classic", {"jokers": 2, "rounds": 100}), ("club", {"skip_on_match": True}),
])
def test_limits_are_inclusive(preset: str, overrides: dict[str, Any]) -> None:
    assert Rules.preset(preset, **overrides).to_dict().items() >= overrides.items()


def test_unknown_option() -> None:
    with pytest.raises(UnknownOption) as info:
        Rules.preset("classic", jockers=1)
    assert info.value.code == "unknown_option"
    assert "jockers" in info.value.message
    assert isinstance(info.value, InvalidRules)
    with pytest.raises(UnknownOption):
        Rules.from_dict({"players": 4, "speed": "fast"})


def test_unknown_preset() -> None:
    with pytest.raises(UnknownPreset) as info:
        Rules.preset("tournament")
    assert info.value.code == "unknown_preset"
    assert "tournament" in info.value.message
    assert all(name in info.value.message for name in PRESETS)


@pytest.mark.parametrize("name", PRESET_DIFFERENCES)
def test_to_dict_from_dict_round_trip(name: str) -> None:
    rules = Rules.preset(name, players=3, jokers=1)
    data = json.loads(json.dumps(rules.to_dict()))
    assert Rules.from_dict(data) == rules


def test_describe_options_lists_every_field() -> None:
    options = describe_options()
    assert [o["name"] for o in options] == [f.name for f in dataclasses.fields(Rules)]
    assert {o["name"]: o["default"] for o in options} == DEFAULTS
    assert all(o["description"] and o["type"] in ("bool", "int", "enum") for o in options)
    choices = {o["name"]: o.get("choices") for o in options if o["type"] == "enum"}
    assert choices == {"first_lead": ["three_of_clubs", "first_seat", "three_of_diamonds"],
                       "later_lead": ["trou", "president", "three_of_diamonds"]}
