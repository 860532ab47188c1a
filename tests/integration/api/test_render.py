"""The game JSON the API sends is exactly what its ``GameOut`` schema gives (so rendering
can skip pydantic's output pass): every field present, nothing extra, same values."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import PRESETS, Rules, State, apply, new_series
from engine.game import generate
from services.api.render import game_json
from services.api.schemas import GameOut
from services.domain import Game, Seat
from services.views import GameView
from positions import position


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_game_s_json_is_what_its_schema_gives(preset: str) -> None:
    rng = random.Random(preset)
    state = new_series(Rules.preset(preset, rounds=2), 7)
    seats = tuple(Seat(n, "human" if n % 2 else "ai", None if n % 2 else "easy")
                  for n in range(state.players))
    version, checked = 0, 0
    while True:
        if version % 11 == 0 or state.is_over:  # every phase, every seat and a spectator
            game = Game("f" * 32, preset, seats, state, version, pace_ms=version,
                        turn_timeout_ms=None if version % 2 else 30_000)
            for seat in (None, *range(state.players)):
                rendered = game_json(GameView.of(game, seat))
                assert GameOut.model_validate(rendered).model_dump(
                    mode="json", by_alias=True) == rendered
                checked += 1
        if state.is_over:
            break
        state, _ = apply(state, rng.choice(generate(state)))
        version += 1
    assert checked > 20


def test_a_locked_trick_shows_its_suits_and_the_joker_names_its_card() -> None:
    state = position("classic", ("", "9H JR TC", "4S"), to_act=1,
                     trick=[(0, "7H 7S"), (2, "8H 8S")], suit_lock=True, jokers=1)
    seats = tuple(Seat(n, "human", None) for n in range(3))

    def view_of(state: State) -> Any:
        game = Game("f" * 32, "classic", seats, state, 3, pace_ms=0, turn_timeout_ms=None)
        return game_json(GameView.of(game, 1))["view"]

    view = view_of(state)
    assert view["locked_suits"] == ["H", "S"]
    assert view["legal_actions"] == ["9H JR=9S", "pass"]
    assert view_of(state._replace(trick=state.trick[:1]))["locked_suits"] == []
