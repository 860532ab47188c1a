"""The AI levels: legality everywhere, each level's documented behaviour, no peeking
outside the view, determinism under a simulation budget."""

from __future__ import annotations

import inspect
import json
import os
import random
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import (
    PASS, PRESETS, Give, Phase, Play, PlayKind, Rules, State, View, apply, cards_of,
    new_series, observe,
)
from workers.ai import LEVELS, Budget, decide
from workers.ai.search import candidates

from aihelpers import (
    JOKERS, bits_of, drive, easy_action, exchange_position, held_of_rank,
    other_seats_in, play_round_one_with_easy, position, rank_of_bit, rules_strategy, seeds,
)
from positions import swap_hidden

ROOT = Path(__file__).resolve().parents[3]
SMALL = Budget(simulations=6)
PROPS = settings(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def budget_for(level: str) -> Budget | None:
    return SMALL if level in ("hard", "expert") else None


def play_of(text: str) -> Play:
    return Play.from_str(text)


def gift(text: str) -> Give:
    return Give.from_str(text)


# --- every level, every ruleset: always a legal action ---------------------------------


def test_levels_are_the_four_documented_ones() -> None:
    assert LEVELS == ("easy", "normal", "hard", "expert")


@settings(PROPS, max_examples=150)
@given(rules=rules_strategy(max_rounds=2), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 160), ai_seed=st.integers(0, 2**31))
def test_every_level_returns_a_legal_action(rules: Rules, seed: int, choice_seed: int,
                                            steps: int, ai_seed: int) -> None:
    state = drive(rules, seed, choice_seed, steps)
    view = observe(state, state.to_act)
    for level in LEVELS:
        action = decide(view, level, seed=ai_seed, budget=budget_for(level))
        assert action in view.legal_actions, (level, str(action), rules)
        # and the engine agrees: applying it raises nothing
        apply(state, action)


@settings(PROPS, max_examples=40)
@given(rules=rules_strategy(min_rounds=2, max_rounds=3, exchange=True), seed=seeds,
       ai_seed=st.integers(0, 2**31))
def test_every_level_gives_a_legal_gift_in_the_exchange(rules: Rules, seed: int,
                                                        ai_seed: int) -> None:
    state = play_round_one_with_easy(rules, seed)
    assert state.round_no == 2 and state.phase is Phase.EXCHANGE
    gifts_seen = 0
    while state.phase is Phase.EXCHANGE:
        view = observe(state, state.to_act)
        owed = view.pending[0][2]
        hand = mask_of_view(view)
        chosen = {}
        for level in LEVELS:
            action = decide(view, level, seed=ai_seed, budget=budget_for(level))
            assert isinstance(action, Give), (level, action)
            assert action in view.legal_actions
            assert action.size == owed and action.mask & ~hand == 0
            chosen[level] = action
        # Hard and Expert use Normal's gift rule (search.py)
        assert chosen["hard"] == chosen["normal"] == chosen["expert"]
        state, _ = apply(state, chosen["normal"])
        gifts_seen += 1
    assert gifts_seen == (2 if rules.players >= 4 else 1)


def mask_of_view(view: View) -> int:
    out = 0
    for card in view.hand:
        out |= card.bit
    return out


# --- Easy: its definition on literal hands ----------------------------------------------


@pytest.mark.parametrize("hands, options, reversed_, trick, expected", [
    # leading: the weakest single (lowest suit bit within the rank), naturals before jokers
    (["9C 3S 5H 3D JR", "4C", "4D"], {"jokers": 1}, False, [], "3D"),
    (["JR KS", "4C", "4D"], {"jokers": 1}, False, [], "KS"),
    (["JR", "4C", "4D"], {"jokers": 1}, False, [], "JR"),
    # leading in a revolution: 2s are the weakest
    (["5H 2D KS 2C", "4C", "4D"], {"revolution": True}, True, [], "2C"),
    # following: the weakest play that fits
    (["4C 7D 7H 9S 2C", "4D", "4H"], {}, False, [(1, "6S")], "7D"),
    (["5C 5D 9H 9S TC TD", "4D", "4H"], {}, False, [(1, "8C 8D")], "9H 9S"),
    (["5C 5D KH KS 3C", "4D", "4H"], {"revolution": True}, True, [(1, "8C 8D")], "5C 5D"),
    (["3C 4D JR", "4C", "4H"], {"jokers": 1}, False, [(1, "2S")], "JR"),
    # with equal match, an equal play fits and is the weakest
    (["7C 9D", "4D", "4H"], {"equal_match": True}, False, [(1, "7S")], "7C"),
    # nothing fits: pass
    (["3C 4D KH", "4C", "4H"], {}, False, [(1, "AS")], "pass"),
    (["3C 3D KH", "4C", "4H"], {}, False, [(1, "AS AH")], "pass"),
])
def test_easy_plays_the_first_non_pass_action(hands: list[str], options: dict[str, object],
                                              reversed_: bool, trick: list[tuple[int, str]],
                                              expected: str) -> None:
    state = position("classic", hands, to_act=0, trick=trick, reversed=reversed_, **options)
    view = observe(state, 0)
    assert decide(view, "easy") is play_of(expected)


def test_easy_gives_back_its_lowest_cards() -> None:
    state = exchange_position(["2S 5D 3H KD 5C", "4C", "4D"], giver=0, receiver=2, count=2)
    view = observe(state, 0)
    assert decide(view, "easy") == gift("3H 5C")
    state = exchange_position(["2S 5D 3H KD", "4C", "4D", "6S"], giver=0, receiver=3, count=1)
    assert decide(observe(state, 0), "easy") == gift("3H")


@settings(PROPS, max_examples=40)
@given(rules=rules_strategy(max_rounds=2), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 160))
def test_easy_matches_its_definition_on_random_views(rules: Rules, seed: int,
                                                     choice_seed: int, steps: int) -> None:
    state = drive(rules, seed, choice_seed, steps)
    view = observe(state, state.to_act)
    action = decide(view, "easy")
    legal = view.legal_actions
    if isinstance(legal[0], Give):
        hand = mask_of_view(view)
        lowest = sum(bits_of(hand)[:view.pending[0][2]])
        assert action == Give(lowest)
        return
    plays = [a for a in legal if a]
    if not plays:
        assert action is PASS
        return
    assert action is plays[0]
    # the first play is the weakest: a single when leading, nothing that fits is weaker
    if not view.trick:
        assert action.size == 1


def test_easy_as_a_real_president_gives_its_two_lowest_cards() -> None:
    state = play_round_one_with_easy(Rules.preset("classic", players=4), seed=3)
    assert state.phase is Phase.EXCHANGE
    view = observe(state, state.to_act)
    hand = mask_of_view(view)
    assert decide(view, "easy") == Give(sum(bits_of(hand)[:2]))


# --- Normal ---------------------------------------------------------------------------


def breaks(play: Play, hand: int) -> bool:
    """Leaves natural cards of a rank it uses behind (group), or uses a natural card of a
    rank held two or more times (straight)."""
    if play.kind is PlayKind.GROUP:
        naturals = play.size - play.jokers
        return naturals < held_of_rank(hand, play.rank)
    if play.kind is PlayKind.STRAIGHT:
        return any(held_of_rank(hand, rank_of_bit(b)) > 1  # type: ignore[arg-type]
                   for b in bits_of(play.mask & ~JOKERS))
    return False


def spends_power(play: Play, reversed_: bool) -> bool:
    """Uses a joker, a natural card of the strongest rank in force, or is a quad."""
    power = 0 if reversed_ else 12
    if play.mask & JOKERS:
        return True
    if any(rank_of_bit(b) == power for b in bits_of(play.mask)):
        return True
    return play.kind is PlayKind.GROUP and play.size == 4


@pytest.mark.parametrize("hands, options, reversed_, trick, expected", [
    # leads the weakest whole group: the pair of 3s, not a 3 out of it
    (["3C 3D 7H 9S 9D 2C", "4C", "4D"], {}, False, [], "3C 3D"),
    # a clean 8 rather than breaking the 6s or spending the 2 or the joker
    (["6C 6D 8H 2S JR", "4C", "4D"], {"jokers": 1}, False, [(1, "5S")], "8H"),
    # no clean play: spend the 2 (power) before breaking the aces; 2 before the joker
    (["AC AD 2S JR 4H", "4C", "4D"], {"jokers": 1}, False, [(1, "KS")], "2S"),
    # only a break fits: break rather than pass
    (["AC AD 4H", "4C", "4D"], {}, False, [(1, "KS")], "AC"),
    # revolution: 3s are the power; the clean 5 comes first
    (["3C 5D 9H 9S", "4C", "4D"], {"revolution": True}, True, [(1, "KS")], "5D"),
    (["4C 6D 9H", "5C", "5D"], {"revolution": True}, True, [(1, "KS")], "9H"),
    (["3C 9H 9S 7D", "4C", "4D"], {"revolution": True}, True, [(1, "8S")], "7D"),
    # a straight that takes a natural of a pair breaks it: the clean straight goes instead
    (["5H 6H 7H 7C 8D 9D TD", "4C", "4D"], {"straights": True}, False, [(1, "3S-4S-5S")],
     "8D-9D-TD"),
    # nothing fits: pass
    (["3C 4D", "4C", "4H"], {}, False, [(1, "AS")], "pass"),
])
def test_normal_on_literal_hands(hands: list[str], options: dict[str, object], reversed_: bool,
                                 trick: list[tuple[int, str]], expected: str) -> None:
    state = position("classic", hands, to_act=0, trick=trick, reversed=reversed_, **options)
    assert decide(observe(state, 0), "normal") is play_of(expected)


@pytest.mark.parametrize("hand, reversed_", [
    # KH is a clean single; the straight KH-AH-2H spends the 2
    ("KH AH 2H 5C 5D 5H 5S", False),
    # in a revolution 3s are the power: 5H is a clean single; 3H-4H-5H spends the 3
    ("3H 4H 5H KC KD KH KS", True),
])
def test_normal_keeps_its_power_rather_than_lead_a_straight_through_it(
        hand: str, reversed_: bool) -> None:
    state = position("classic", [hand, "6C 7C", "6D 7D"], to_act=0, straights=True,
                     revolution=True, reversed=reversed_)
    view = observe(state, 0)
    choice = decide(view, "normal")
    assert not spends_power(choice, reversed_), (
        f"Normal chose {choice}, spending its power, though a clean play exists")


@settings(PROPS, max_examples=150)
@given(rules=rules_strategy(max_rounds=1), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 200))
def test_normal_never_breaks_when_an_unbroken_play_exists(rules: Rules, seed: int,
                                                          choice_seed: int, steps: int) -> None:
    state = drive(rules, seed, choice_seed, steps)
    view = observe(state, state.to_act)
    hand = state.hands[state.to_act]
    plays = [a for a in view.legal_actions if isinstance(a, Play) and a]
    unbroken = [p for p in plays if p.kind is PlayKind.GROUP and not p.mask & JOKERS
                and p.size == held_of_rank(hand, p.rank)]
    choice = decide(view, "normal")
    if unbroken:
        assert not breaks(choice, hand), (
            f"Normal broke with {choice} though {unbroken[0]} keeps every rank whole "
            f"(hand {' '.join(map(str, view.hand))})")


@settings(PROPS, max_examples=150)
@given(rules=rules_strategy(max_rounds=1), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 200))
def test_normal_keeps_twos_and_jokers_when_a_clean_play_exists(rules: Rules, seed: int,
                                                              choice_seed: int,
                                                              steps: int) -> None:
    state = drive(rules, seed, choice_seed, steps)
    view = observe(state, state.to_act)
    hand = state.hands[state.to_act]
    plays = [a for a in view.legal_actions if isinstance(a, Play) and a]
    clean = [p for p in plays if not breaks(p, hand) and not spends_power(p, view.reversed)]
    choice = decide(view, "normal")
    # passes only when nothing fits
    assert (choice is PASS) == (not plays)
    if clean:
        assert not spends_power(choice, view.reversed), (
            f"Normal spent power with {choice} though {clean[0]} is clean "
            f"(hand {' '.join(map(str, view.hand))}, reversed={view.reversed})")
        assert not breaks(choice, hand)


@st.composite
def straight_positions(draw: st.DrawFn) -> State:
    """A random hand under straights (and revolution), leading or following a random play
    of another hand: the positions where straights can spend a 2 or a 3."""
    jokers = draw(st.integers(0, 2))
    cards = draw(st.lists(st.integers(0, 51 + jokers), min_size=16, max_size=26, unique=True))
    split = draw(st.integers(1, len(cards) - 4))
    mine = " ".join(str(c) for c in cards_of(sum(1 << c for c in cards[:split])))
    theirs = " ".join(str(c) for c in cards_of(sum(1 << c for c in cards[split:])))
    reversed_ = draw(st.booleans())
    state = position("full", [mine, theirs, ""], to_act=1, jokers=jokers, reversed=reversed_)
    trick: list[tuple[int, str]] = []
    if draw(st.booleans()):
        opening = observe(state, 1).legal_actions
        top = opening[draw(st.integers(0, len(opening) - 1))]
        trick = [(1, str(top))]
    return position("full", [mine, theirs, ""], to_act=0, trick=trick, jokers=jokers,
                    reversed=reversed_)


@settings(PROPS, max_examples=150)
@given(state=straight_positions())
def test_normal_keeps_twos_and_jokers_under_straights(state: State) -> None:
    view = observe(state, 0)
    hand = state.hands[0]
    plays = [a for a in view.legal_actions if isinstance(a, Play) and a]
    clean = [p for p in plays if not breaks(p, hand) and not spends_power(p, view.reversed)]
    choice = decide(view, "normal")
    assert (choice is PASS) == (not plays)
    if clean:
        assert not spends_power(choice, view.reversed), (
            f"Normal spent power with {choice} though {clean[0]} is clean "
            f"(hand {' '.join(map(str, view.hand))}, reversed={view.reversed}, "
            f"top {view.top})")
        assert not breaks(choice, hand)


@pytest.mark.parametrize("hand, expected", [
    # singletons first, weakest first; never a pair
    ("3C 3D 4H 6S 6D 9C 2S 2H", "4H 9C"),
    ("3C 3D 4H 6S 6D 9C KH 2S", "4H 9C"),
    # no singleton: the weakest ranks, one card each
    ("3C 3D 5C 5D 2S 2H", "3C 5C"),
    # one singleton, then the weakest other rank
    ("5C 5D 8H 8S 9C 2S", "9C 5C"),
    # 2s and jokers stay while anything else is left
    ("KC 2S 2H JR AD", "KC AD"),
])
def test_normal_president_gives_back_two_low_cards_of_different_ranks(hand: str,
                                                                      expected: str) -> None:
    state = exchange_position([hand, "4C", "4D"], giver=0, receiver=2, count=2, jokers=1)
    view = observe(state, 0)
    chosen = decide(view, "normal")
    assert chosen == gift(expected)
    ranks = {c.rank for c in chosen.cards}
    assert len(ranks) == 2


def test_normal_vice_president_gives_back_a_low_singleton() -> None:
    state = exchange_position(["3C 3D 6H 9S 2S", "4C", "4D", "5S"], giver=0, receiver=2,
                              count=1)
    assert decide(observe(state, 0), "normal") == gift("6H")


@st.composite
def president_hands(draw: st.DrawFn) -> int:
    cards = draw(st.sets(st.integers(0, 53), min_size=2, max_size=18))
    hand = sum(1 << c for c in cards)
    return hand


@settings(PROPS, max_examples=200)
@given(hand=president_hands())
def test_normal_president_never_gives_a_pair(hand: int) -> None:
    non_two_ranks = sorted({rank_of_bit(b) for b in bits_of(hand)} - {None, 12})  # type: ignore[type-var]
    assume(len(non_two_ranks) >= 2)
    state = exchange_position([" ".join(map(str, cards_of(hand))), "", ""], giver=0,
                              receiver=2, count=2, jokers=2)
    view = observe(state, 0)
    chosen = decide(view, "normal")
    assert isinstance(chosen, Give) and chosen.size == 2 and chosen.mask & ~hand == 0
    ranks = [c.rank for c in chosen.cards]
    assert None not in ranks, "a joker given while other cards remain"
    assert 12 not in ranks, "a 2 given while other cards remain"
    assert ranks[0] != ranks[1], "a pair given back"
    # low cards: within its rank each card is the lowest one, and singletons go first,
    # weakest first, then the weakest other ranks
    for c in chosen.cards:
        nib = (hand >> (4 * c.rank)) & 15
        assert c.bit == (nib & -nib) << (4 * c.rank), f"{c} is not the lowest of its rank"
    singles = [r for r in non_two_ranks if held_of_rank(hand, r) == 1]
    others = [r for r in non_two_ranks if held_of_rank(hand, r) > 1]
    assert sorted(ranks) == sorted((singles + others)[:2])  # type: ignore[type-var]
    # Hard and Expert give back by Normal's rule
    for level in ("hard", "expert"):
        assert decide(view, level, budget=SMALL) == chosen


# --- nothing outside the view ------------------------------------------------------------


def test_decide_takes_a_view_and_nothing_that_holds_hidden_cards() -> None:
    sig = inspect.signature(decide)
    assert list(sig.parameters) == ["view", "level", "seed", "budget"]
    assert sig.parameters["seed"].kind is inspect.Parameter.KEYWORD_ONLY
    assert sig.parameters["budget"].kind is inspect.Parameter.KEYWORD_ONLY
    hints = typing.get_type_hints(decide)
    assert hints["view"] is View
    assert State not in hints.values()  # no parameter may carry a full state


def test_decide_rejects_a_view_without_legal_actions_and_unknown_levels() -> None:
    state = new_series(Rules.preset("classic"), seed=1)
    not_my_turn = next(s for s in range(state.players) if s != state.to_act)
    for level in LEVELS:
        with pytest.raises(ValueError):
            decide(observe(state, not_my_turn), level, budget=budget_for(level))
        with pytest.raises(ValueError):
            decide(observe(state, None), level, budget=budget_for(level))
    with pytest.raises(ValueError, match="unknown AI level"):
        decide(observe(state, state.to_act), "grandmaster")
    with pytest.raises(ValueError):
        decide(observe(state, state.to_act), "Easy")


def test_a_finished_series_has_nothing_to_decide() -> None:
    state = new_series(Rules.preset("classic", rounds=1, players=3), seed=2)
    while not state.is_over:
        state, _ = apply(state, easy_action(state))
    for seat in range(3):
        for level in LEVELS:
            with pytest.raises(ValueError):
                decide(observe(state, seat), level, budget=budget_for(level))


def test_budget_validation() -> None:
    with pytest.raises(ValueError):
        Budget()
    with pytest.raises(ValueError):
        Budget(simulations=0)
    with pytest.raises(ValueError):
        Budget(milliseconds=0)


@settings(PROPS, max_examples=80)
@given(rules=rules_strategy(max_rounds=2), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 80), ai_seed=st.integers(0, 2**31))
def test_no_level_reads_the_other_seats_hidden_cards(rules: Rules, seed: int, choice_seed: int,
                                                     steps: int, ai_seed: int) -> None:
    state = drive(rules, seed, choice_seed, steps, max_round=1)
    assert state.round_no == 1 and not state.exchanges
    me = state.to_act
    others = other_seats_in(state, me)
    assume(len(others) >= 2)
    rng = random.Random(ai_seed)
    a, b = rng.sample(others, 2)
    swapped = swap_hidden(state, a, b, rng)
    assert swapped.hands != state.hands
    assert [h.bit_count() for h in swapped.hands] == [h.bit_count() for h in state.hands]
    view, other_view = observe(state, me), observe(swapped, me)
    assert view == other_view  # the seat cannot tell the two apart...
    budget = Budget(simulations=10)
    for level in LEVELS:
        # ...and neither can any level
        first = decide(view, level, seed=ai_seed, budget=budget)
        second = decide(other_view, level, seed=ai_seed, budget=budget)
        assert first == second, (level, str(first), str(second))


# --- determinism -------------------------------------------------------------------------

def determinism_positions() -> list[tuple[str, int, State]]:
    """Fixed positions of every preset where the search has a real choice."""
    out = []
    for preset in sorted(PRESETS):
        for seed in (1, 2, 3):
            rules = Rules.preset(preset, players=4, rounds=1)
            state = new_series(rules, seed)
            rng = random.Random(seed)
            for _ in range(4 + 7 * seed):
                state, _ = apply(state, easy_action(state) if rng.random() < 0.5
                                 else rng.choice([a for a in _legal(state)]))
            out.append((preset, seed, state))
    return out


def _legal(state: State) -> list[object]:
    from engine import legal_actions
    return list(legal_actions(state))


def decisions() -> list[list[object]]:
    result: list[list[object]] = []
    for preset, seed, state in determinism_positions():
        view = observe(state, state.to_act)
        for level in ("hard", "expert"):
            action = decide(view, level, seed=97 + seed, budget=Budget(simulations=40))
            result.append([preset, seed, level, str(action)])
    return result


def test_determinism_positions_are_real_choices() -> None:
    real = 0
    for _, _, state in determinism_positions():
        view = observe(state, state.to_act)
        real += len(candidates(view, 8)) > 1
    assert real >= 8  # most positions offer the search several distinct candidates


def test_hard_and_expert_are_deterministic_with_a_simulation_budget() -> None:
    first = decisions()
    assert decisions() == first
    workers_tests = str(Path(__file__).resolve().parent)
    tests_root = str(Path(__file__).resolve().parents[2])
    script = (
        "import json, sys\n"
        f"sys.path[:0] = [{workers_tests!r}, {tests_root!r}]\n"
        "from test_levels import decisions\n"
        "print(json.dumps(decisions()))\n"
    )
    for hashseed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed)
        proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == first, f"differs with PYTHONHASHSEED={hashseed}"


def test_same_view_and_seed_same_choice_across_calls_on_random_positions() -> None:
    rng = random.Random(5)
    budget = Budget(simulations=24)
    for preset in sorted(PRESETS):
        rules = Rules.preset(preset, players=5 if PRESETS[preset].max_players >= 5 else 4)
        state = drive(rules, rng.randrange(1 << 30), rng.randrange(1 << 30), rng.randrange(60))
        view = observe(state, state.to_act)
        for level in ("hard", "expert"):
            a = decide(view, level, seed=123, budget=budget)
            b = decide(observe(state, state.to_act), level, seed=123, budget=budget)
            assert a == b
