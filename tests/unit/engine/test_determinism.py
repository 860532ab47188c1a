"""Seeds fix the deals, and a fixed-seed game is reproducible from one process to the next.

Stored games are replayed from (rules, seed, actions): the deal of every round must not
depend on anything else — not on the call, not on the process, not on PYTHONHASHSEED.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, CardsGiven, Phase, Rules, deal, new_series, new_series_with_events
from engine.cards import format_cards
from strategies import Config, configs, deck_mask, run_series, seeds

ROOT = Path(__file__).resolve().parents[3]


# --- deals -------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(config=configs(), seed=seeds, round_no=st.integers(1, 100))
def test_a_deal_is_the_same_on_every_call(config: Config, seed: int, round_no: int) -> None:
    rules = config.rules
    hands = deal(rules, seed, round_no)
    assert deal(rules, seed, round_no) == hands
    assert deal(Rules.preset(config.preset, **config.overrides), seed, round_no) == hands
    # a partition of the deck, dealt one card at a time from seat 0
    seen = 0
    for hand in hands:
        assert hand & seen == 0
        seen |= hand
    assert seen == deck_mask(rules)
    size, extra = divmod(52 + rules.jokers, rules.players)
    assert [h.bit_count() for h in hands] == [size + (s < extra) for s in range(rules.players)]


@pytest.mark.parametrize("rules, seed, round_no, expected", [
    (Rules(), 0, 1, [
        "4C 5S 6H 7H 8S 9C TH TS JH KD KH KS 2D",
        "3D 4H 4S 5C 5D 6S 7D 7S 8C 8D QD QH 2H",
        "3C 3H 5H 6C 7C 9D 9H 9S TD JC JS KC 2C",
        "3S 4D 6D 8H TC JD QC QS AC AD AH AS 2S"]),
    (Rules(players=5, jokers=2), 123, 2, [
        "3D 3H 4D 5D 6D 8S 9S JH JS QC 2C",
        "3C 5H 6H 7H 7S TH JC QD QS AS JB",
        "4C 4H 7D 8D 8H 9C TC TS AC AH 2H",
        "4S 6C 8C 9D JD KC KD KH KS 2D 2S",
        "3S 5C 5S 6S 7C 9H TD QH AD JR"]),
    (Rules(players=3, jokers=1), 2**40, 7, [
        "3D 4C 4D 4H 4S 5H 6H 6S 7H 8D JD JH QS KC AD AH AS 2S",
        "3C 3S 5S 6C 6D 7C 8C 8H 8S 9C 9H JC JS QC KD KH 2C 2H",
        "3H 5C 5D 7D 7S 9D 9S TC TD TH TS QD QH KS AC 2D JR"]),
])
def test_a_seed_deals_the_recorded_hands(rules: Rules, seed: int, round_no: int,
                                         expected: list[str]) -> None:
    """Pinned deals: changing the shuffle would make every stored game unreplayable."""
    assert [format_cards(h) for h in deal(rules, seed, round_no)] == expected


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_different_seeds_and_rounds_deal_differently(preset: str) -> None:
    rules = Rules.preset(preset, players=3 if preset == "cardverse" else 4)
    by_seed = {deal(rules, seed, 1) for seed in range(300)}
    assert len(by_seed) == 300
    by_round = {deal(rules, 99, round_no) for round_no in range(1, 101)}
    assert len(by_round) == 100
    # large and negative seeds are seeds too
    odd = [deal(rules, s, 1) for s in (-1, 2**63, 2**64 + 1, -(2**70))]
    assert len(set(odd) | by_seed) == 304


@settings(max_examples=40, deadline=None)
@given(config=configs(), seed=seeds, choice_seed=seeds)
def test_every_round_starts_from_the_seeded_deal(config: Config, seed: int,
                                                 choice_seed: int) -> None:
    """The hands at the start of each round are ``deal(rules, seed, round)`` with the
    automatic exchange (the Trou's and Vice-Trou's best cards) applied."""
    rules = config.rules
    first, events = new_series_with_events(rules, seed)
    assert first.hands == deal(rules, seed, 1) and first.round_no == 1
    assert new_series(rules, seed) == first
    trace = run_series(rules, seed, choice_seed, None)
    starts = [s for prev, s in zip(trace.states, trace.states[1:])
              if s.round_no != prev.round_no and s.phase is not Phase.OVER]
    assert len(starts) == rules.rounds - 1
    for state in starts:
        resets = rules.reset_every > 0 and (state.round_no - 1) % rules.reset_every == 0
        # deal_from_president: from the seat of the previous round's first place
        start = state.results[-1].ranking[0] if rules.deal_from_president and not resets else 0
        hands = list(deal(rules, seed, state.round_no, start))
        for exchange in state.exchanges:
            assert exchange.automatic
            hands[exchange.giver] ^= exchange.mask
            hands[exchange.receiver] |= exchange.mask
        assert tuple(hands) == state.hands
        assert bool(state.exchanges) == (rules.exchange and not resets)
    gifts = [e for e in events if isinstance(e, CardsGiven)]
    assert gifts == []  # no exchange before the first round


# --- across processes ------------------------------------------------------------------------

GAME_SCRIPT = r"""
import hashlib, json, random
from engine import Rules, apply, legal_actions, new_series_with_events

def run(preset, overrides, seed, choice_seed):
    rules = Rules.preset(preset, **overrides)
    state, events = new_series_with_events(rules, seed)
    rng = random.Random(choice_seed)
    log = [repr(events)]
    while not state.is_over:
        actions = list(legal_actions(state))
        state, events = apply(state, actions[rng.randrange(len(actions))])
        log.append(repr(events))
    return {
        "players": rules.players,
        "rounds": rules.rounds,
        "scores": list(state.outcome.scores),
        "standing": list(state.outcome.standing),
        "actions": [str(a) for a in state.actions()],
        "events": hashlib.sha256("\n".join(log).encode()).hexdigest(),
    }

GAMES = [
    ("full", {"players": 5, "rounds": 3}, 11, 1),
    ("classic-variants", {"players": 4, "rounds": 3, "jokers": 2}, 2026, 2),
    ("cardverse", {"players": 6, "rounds": 2, "jokers": 1, "straights": True}, 7, 3),
    ("club", {"players": 8, "rounds": 2, "exchange": True, "later_lead": "president"}, 0, 4),
]
print(json.dumps([run(*game) for game in GAMES]))
"""


def run_game_script(hash_seed: str) -> list[dict[str, object]]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", GAME_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result: list[dict[str, object]] = json.loads(done.stdout)
    return result


def test_a_fixed_seed_game_is_reproducible_across_processes_and_hash_seeds() -> None:
    runs = {seed: run_game_script(seed) for seed in ("0", "1", "31337", "random")}
    reference = runs["0"]
    for hash_seed, result in runs.items():
        assert result == reference, f"PYTHONHASHSEED={hash_seed} played a different game"
    # and in this process too
    namespace: dict[str, object] = {"__name__": "game_script"}
    exec(GAME_SCRIPT.replace("print(json.dumps(", "RESULT = (("), namespace)
    assert json.loads(json.dumps(namespace["RESULT"])) == reference
    # the games are real: every round scored, every action recorded
    assert len(reference) == 4
    for game in reference:
        n, rounds = game["players"], game["rounds"]
        assert isinstance(n, int) and isinstance(rounds, int)
        assert sum(game["scores"]) == rounds * n * (n + 1) // 2  # type: ignore[arg-type]
        assert sorted(game["standing"]) == list(range(n))  # type: ignore[arg-type]
        assert len(game["actions"]) > rounds * 10  # type: ignore[arg-type]
