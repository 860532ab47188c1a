"""Hints on fakes (``tests/fakes.py``): the level is handed the seat's view and nothing
more, so two games that differ only in cards the seat cannot see give the same hint for
the same seed, a legal action; nothing is played."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import View, legal_actions, apply, observe
from engine.plays import Action
from fakes import FakeDatabase
from positions import swap_hidden
from services.commands import CreateGame, SeatSpec
from services.domain import ANONYMOUS, ApiKey, Caller, Hint
from services.domain import Weighed as HintCandidate
from services.handlers.games import create_game
from services.handlers.hints import HINT_LEVELS, SEARCHING, hint
from services.handlers.quotas import ai_time_used
from workers.ai import LEVELS, Budget, analyse
from workers.ai.levels import SEARCHES


class Deterministic:
    """An ``Adviser`` in process, searching a number of simulations (not a time, which
    the machine's speed would change), recording the views it is handed."""

    def __init__(self) -> None:
        self.views: list[View] = []

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint:
        self.views.append(view)
        action, weighed = analyse(view, level, seed=seed, budget=Budget(simulations=48))
        return Hint(level, str(action), tuple(HintCandidate(str(w.action), w.expected_points,
                                                            w.simulations) for w in weighed))


@pytest.mark.parametrize("seed", range(6))
def test_a_hint_is_the_same_whatever_the_cards_the_seat_cannot_see(seed: int) -> None:
    rng = random.Random(seed)
    db = FakeDatabase()
    seats = tuple(SeatSpec("human") for _ in range(4))
    created = create_game(CreateGame("classic", seats, rounds=1), db.uow(), LEVELS,
                          caller=ANONYMOUS, draw=lambda: seed)
    game_id = created.game.game_id
    stored = db.games[game_id]
    state = stored.game.state
    for _ in range(rng.randrange(0, 12)):  # somewhere into the round
        state, _ = apply(state, rng.choice(list(legal_actions(state))))
    me = state.to_act
    token = created.tokens[me]
    a, b = rng.sample([s for s in range(state.players) if s != me and state.hands[s]], 2)
    twin = swap_hidden(state, a, b, rng)  # what ``me`` sees of it is unchanged
    assert twin != state and observe(twin, me) == observe(state, me)
    hints = []
    for version in (state, twin):
        stored.game = replace(stored.game, state=version)
        adviser = Deterministic()
        hints.append(hint(game_id, token, "hard", None, 3, db.reads(), db.uow, adviser))
        assert adviser.views == [observe(version, me)]
    assert hints[0] == hints[1]
    assert hints[0].action in {str(a) for a in observe(state, me).legal_actions}
    assert db.games[game_id].game.version == created.game.version  # nothing played


def test_the_hint_levels_are_the_ai_levels_and_those_counted_the_searching_ones() -> None:
    assert HINT_LEVELS == LEVELS and SEARCHING == tuple(SEARCHES)


class Timed:
    """An ``Adviser`` that says how long its level thought (as the AI pool does), and
    takes longer than that to answer (a wait for a place in the pool)."""

    def __init__(self, thought_s: float | None) -> None:
        self.thought_s = thought_s

    def advise(self, view: View, level: str, seed: int, budget_ms: float | None,
               also: Action | None = None) -> Hint:
        return Hint(level, str(view.legal_actions[0]), (), self.thought_s)


@pytest.mark.parametrize("thought_s", [0.25, None])
def test_a_hint_charges_the_owner_what_its_level_thought(thought_s: float | None) -> None:
    db = FakeDatabase()
    key = Caller(ApiKey("k1", "app", frozenset({"games:create-human"})))
    created = create_game(CreateGame("classic", tuple(SeatSpec("human") for _ in range(3))),
                          db.uow(), LEVELS, caller=key, draw=lambda: 1)
    game = db.games[created.game.game_id].game
    token = created.tokens[game.state.to_act]
    ticks = iter([10.0, 13.0])  # the call took 3 s, waiting included
    hint(game.id, token, "expert", None, None, db.reads(), db.uow, Timed(thought_s),
         clock=lambda: next(ticks), caller=key)
    with db.uow() as uow:
        assert ai_time_used(uow, "k1") == pytest.approx(3.0 if thought_s is None else 0.25)
