"""Hypothesis strategies for rules: a preset with random option overrides."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from engine import PRESETS, FirstLead, LaterLead

PRESET_NAMES = tuple(sorted(PRESETS))


def _enum_choices(enum: Any) -> list[Any]:
    # both the enum members and their JSON values: with_options coerces the strings
    return [*enum, *(m.value for m in enum)]


@st.composite
def preset_overrides(draw: st.DrawFn, min_rounds: int = 1, max_rounds: int = 3,
                     exchange: bool | None = None) -> tuple[str, dict[str, Any]]:
    """(preset name, overrides). ``players`` and ``rounds`` are always set (players within
    the preset's range); every other option maybe, ``exchange`` fixed when given."""
    name = draw(st.sampled_from(PRESET_NAMES))
    base = PRESETS[name]
    overrides: dict[str, Any] = {
        "players": draw(st.integers(3, base.max_players)),
        "rounds": draw(st.integers(min_rounds, max_rounds)),
    }
    optional: dict[str, st.SearchStrategy[Any]] = {
        "jokers": st.integers(0, 2),
        "straights": st.booleans(),
        "revolution": st.booleans(),
        "straight_revolution": st.booleans(),
        "straights_above": st.booleans(),
        "spade_three_beats_joker": st.booleans(),
        "play_on_own": st.booleans(),
        "suit_lock": st.booleans(),
        "five_card_groups": st.booleans(),
        "jokers_extend_straights": st.booleans(),
        "deal_from_president": st.booleans(),
        "reset_every": st.integers(0, 3),
        "lead_pass": st.booleans(),
        "pass_limit": st.integers(0, 25),
        "equal_match": st.booleans(),
        "skip_on_match": st.booleans(),
        "twos_close": st.booleans(),
        "eights_close": st.booleans(),
        "exchange": st.booleans(),
        "no_finish_on_two": st.booleans(),
        "first_lead": st.sampled_from(_enum_choices(FirstLead)),
        "later_lead": st.sampled_from(_enum_choices(LaterLead)),
    }
    if exchange is not None:
        del optional["exchange"], optional["reset_every"]  # (a reset round has none)
        overrides["exchange"] = exchange
    for option, strategy in optional.items():
        if draw(st.booleans()):
            overrides[option] = draw(strategy)
    if overrides.get("lead_pass", base.lead_pass) and not overrides.get("pass_limit",
                                                                         base.pass_limit):
        overrides["pass_limit"] = draw(st.integers(1, 25))  # random play passes for ever
    if not overrides.get("equal_match", base.equal_match):  # else InvalidRules
        overrides["skip_on_match"] = False
    if not (overrides.get("straights", base.straights)
            and overrides.get("revolution", base.revolution)):
        overrides["straight_revolution"] = False
    if not overrides.get("jokers", base.jokers):
        overrides["spade_three_beats_joker"] = False
        overrides["five_card_groups"] = False
        overrides["jokers_extend_straights"] = False
    if not overrides.get("straights", base.straights):
        overrides["jokers_extend_straights"] = False
    return name, overrides
