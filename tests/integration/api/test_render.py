"""The game JSON the API sends is exactly what its ``GameOut`` schema gives (so rendering
can skip pydantic's output pass): every field present, nothing extra, same values."""

from __future__ import annotations

import random

import pytest

from engine import PRESETS, Rules, apply, new_series
from engine.game import generate
from services.api.render import game_json
from services.api.schemas import GameOut
from services.domain import Game, Seat
from services.views import GameView


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
