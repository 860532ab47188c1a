"""What a seat knows about the hidden hands, and hands sampled consistently with it."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Phase, Play, Role, Rules, State, apply, observe
from engine.determinize import state_from_view
from workers.ai.knowledge import Knowledge, knowledge_of, sample_hands

from aihelpers import (
    bits_of, consistent_deals, drive, drive_to_round, mask, position, round_two_position,
    rules_strategy, seeds,
)

PROPS = settings(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow])
P, N, T = Role.PRESIDENT, Role.NEUTRE, Role.TROU


def expected_knowledge(state: State, me: int) -> tuple[int, list[int], list[int]]:
    """What the seat may know, derived from the full state (not from a view):
    (hidden, pinned per seat, allowed per seat)."""
    n = state.players
    hidden = 0
    for s in range(n):
        if s != me:
            hidden |= state.hands[s]
    pinned = [0] * n
    allowed = [hidden] * n
    for e in state.exchanges:
        if e.giver == me:
            pinned[e.receiver] |= e.mask & hidden
    for e in state.exchanges:
        if e.receiver == me and e.automatic:
            weakest = e.mask & -e.mask
            # every hidden card at or above the weakest card he gave is out, except the
            # cards given back to him
            allowed[e.giver] = (hidden & (weakest - 1)) | pinned[e.giver]
    pinned[me] = allowed[me] = 0
    return hidden, pinned, allowed


def assert_sound(k: Knowledge, state: State) -> None:
    """The real deal satisfies the knowledge: what is known is true."""
    me = k.seat
    assert k.hand == state.hands[me]
    assert k.sizes == tuple(h.bit_count() for h in state.hands)
    for s in range(state.players):
        if s == me:
            continue
        real = state.hands[s]
        assert k.pinned[s] & ~real == 0, f"seat {s}: pinned cards it does not hold"
        assert real & ~k.allowed[s] == 0, f"seat {s}: holds cards knowledge forbids"
        assert k.pinned[s] & ~k.hidden == 0 and k.allowed[s] & ~k.hidden == 0


def assert_consistent(hands: list[int], k: Knowledge) -> None:
    assert len(hands) == len(k.sizes)
    assert hands[k.seat] == k.hand, "own hand changed"
    seen = 0
    for s, h in enumerate(hands):
        assert h & seen == 0, "a card dealt twice"
        seen |= h
        assert h.bit_count() == k.sizes[s], f"seat {s} holds {h.bit_count()}, not {k.sizes[s]}"
        if s != k.seat:
            assert h & k.pinned[s] == k.pinned[s], f"seat {s} lost a pinned card"
            assert h & ~k.allowed[s] == 0, f"seat {s} holds a card it cannot hold"
    assert seen == k.hidden | k.hand, "the hidden cards are not exactly dealt"


# --- knowledge_of: literal positions ---------------------------------------------------


def three_player_round_two(given_back: str, trou_hand: str) -> State:
    """Round 2, 3 players: seat 0 Président, seat 1 Neutre, seat 2 Trou. The Trou gave
    KH 2D (his two best), the Président gave ``given_back``."""
    return round_two_position(
        ["KH 2D 7C 9D", "5D 6C JH QS KD KS AC", trou_hand],
        roles=(P, N, T), exchanges=[(2, 0, "KH 2D", True), (0, 2, given_back, False)],
        to_act=0)


def test_hidden_cards_are_the_other_hands() -> None:
    state = position("classic", ["3C 4C 9H", "5D 6D", "7S 8S TC"], to_act=0)
    for me in range(3):
        k = knowledge_of(observe(state, me))
        others = 0
        for s in range(3):
            if s != me:
                others |= state.hands[s]
        assert k.hidden == others
        assert k.hand == state.hands[me]
        assert k.sizes == (3, 2, 3)
        assert k.pinned == (0, 0, 0)  # round 1: no exchange, nothing known
        assert k.allowed == tuple(0 if s == me else others for s in range(3))


def test_the_trou_knows_where_his_best_cards_went() -> None:
    state = three_player_round_two("3S 4C", "5C 6D 8S 3S 4C")
    k = knowledge_of(observe(state, 2))
    assert k.pinned[0] == mask("KH 2D")
    assert k.pinned[1] == 0
    assert k.allowed[0] & mask("KH 2D") == mask("KH 2D")
    assert_sound(k, state)


def test_a_card_given_back_is_not_pinned_to_the_president() -> None:
    # The Président gives the 2D straight back: the Trou holds it, only KH is pinned.
    state = round_two_position(
        ["KH 7C 9D 3S", "5D 6C JH QS KD KS AC", "5C 6D 8S 2D 4C"],
        roles=(P, N, T), exchanges=[(2, 0, "KH 2D", True), (0, 2, "2D 4C", False)],
        to_act=2)
    k = knowledge_of(observe(state, 2))
    assert k.pinned[0] == mask("KH")
    assert_sound(k, state)


def test_the_president_pins_what_he_gave_back_while_unplayed() -> None:
    state = three_player_round_two("3S 4C", "5C 6D 8S 3S 4C")
    k = knowledge_of(observe(state, 0))
    assert k.pinned[2] == mask("3S 4C")
    assert k.pinned[1] == 0
    assert_sound(k, state)
    # the Trou plays 4C: it is on the table, no longer pinned
    played = state._replace(to_act=2)
    played, _ = apply(played, Play.from_str("4C"))
    k = knowledge_of(observe(played, 0))
    assert k.pinned[2] == mask("3S")
    assert_sound(k, played)


def test_the_president_knows_the_trou_kept_only_lower_cards() -> None:
    state = three_player_round_two("3S 4C", "5C 6D 8S 3S 4C")
    k = knowledge_of(observe(state, 0))
    # weakest card the Trou gave: KH. KD is below it in card order, KS is not, AC is not.
    assert k.allowed[2] == mask("5D 6C JH QS KD 5C 6D 8S 3S 4C")
    assert k.allowed[2] & mask("KS AC") == 0
    assert k.allowed[1] == k.hidden  # the Neutre may hold anything
    assert_sound(k, state)


def test_cards_given_back_to_the_trou_stay_allowed_even_above_the_cut() -> None:
    # The Président gives 2D back: it is above the cut (KH) but the Trou holds it.
    state = round_two_position(
        ["KH 7C 9D 3S", "5D 6C JH QS KD KS AC", "5C 6D 8S 2D 4C"],
        roles=(P, N, T), exchanges=[(2, 0, "KH 2D", True), (0, 2, "2D 4C", False)],
        to_act=0)
    k = knowledge_of(observe(state, 0))
    assert k.pinned[2] == mask("2D 4C")
    assert k.allowed[2] & mask("2D") == mask("2D")
    assert k.allowed[2] & mask("KS AC") == 0
    assert_sound(k, state)


def test_the_neutre_knows_nothing_more() -> None:
    state = three_player_round_two("3S 4C", "5C 6D 8S 3S 4C")
    k = knowledge_of(observe(state, 1))
    assert k.pinned == (0, 0, 0)
    assert k.allowed == (k.hidden, 0, k.hidden)


def test_a_spectator_has_no_knowledge() -> None:
    state = position("classic", ["3C", "4C", "5C"])
    with pytest.raises(ValueError):
        knowledge_of(observe(state, None))


# --- knowledge_of: real games -----------------------------------------------------------


@settings(PROPS, max_examples=60)
@given(rules=rules_strategy(min_rounds=1, max_rounds=3), seed=seeds, choice_seed=seeds,
       round_no=st.integers(1, 3), steps=st.integers(0, 120))
def test_knowledge_matches_the_deal_in_real_games(rules: Rules, seed: int, choice_seed: int,
                                                  round_no: int, steps: int) -> None:
    round_no = min(round_no, rules.rounds)
    state = drive_to_round(rules, seed, choice_seed, round_no, steps)
    for me in range(state.players):
        k = knowledge_of(observe(state, me))
        hidden, pinned, allowed = expected_knowledge(state, me)
        assert k.seat == me
        assert k.hidden == hidden
        assert list(k.pinned) == pinned
        assert list(k.allowed) == allowed
        assert_sound(k, state)


@settings(PROPS, max_examples=25)
@given(rules=rules_strategy(min_rounds=2, max_rounds=2, exchange=True), seed=seeds,
       choice_seed=seeds, steps=st.integers(0, 60))
def test_exchange_knowledge_in_real_round_two(rules: Rules, seed: int, choice_seed: int,
                                              steps: int) -> None:
    state = drive_to_round(rules, seed, choice_seed, 2, 0)
    assert state.phase is Phase.EXCHANGE
    rng = random.Random(choice_seed)
    while state.phase is Phase.EXCHANGE:  # random gifts, which may give received cards back
        view = observe(state, state.to_act)
        state, _ = apply(state, rng.choice(view.legal_actions))
    start = state
    for _ in range(steps):
        nxt, _ = apply(state, rng.choice(list(observe(state, state.to_act).legal_actions)))
        if nxt.round_no != 2 or nxt.is_over:
            break
        state = nxt
    roles = start.roles
    assert roles is not None
    president, trou = roles.index(Role.PRESIDENT), roles.index(Role.TROU)
    auto = next(e for e in start.exchanges if e.giver == trou and e.automatic)
    back = next(e for e in start.exchanges if e.giver == president and not e.automatic)
    k = knowledge_of(observe(state, president))
    # what the Président gave back and the Trou has not played is pinned to the Trou
    assert k.pinned[trou] == back.mask & state.hands[trou]
    # the Trou holds no card at or above the weakest he gave, except what came back
    weakest = auto.mask & -auto.mask
    assert k.allowed[trou] & ~(weakest - 1) & ~back.mask == 0
    assert_sound(k, state)
    k = knowledge_of(observe(state, trou))
    assert k.pinned[president] == auto.mask & state.hands[president]
    assert_sound(k, state)


# --- sample_hands -----------------------------------------------------------------------


@settings(PROPS, max_examples=60)
@given(rules=rules_strategy(min_rounds=1, max_rounds=3), seed=seeds, choice_seed=seeds,
       round_no=st.integers(1, 3), steps=st.integers(0, 120), sample_seed=seeds)
def test_every_sample_is_consistent(rules: Rules, seed: int, choice_seed: int, round_no: int,
                                    steps: int, sample_seed: int) -> None:
    state = drive_to_round(rules, seed, choice_seed, min(round_no, rules.rounds), steps)
    rng = random.Random(sample_seed)
    for me in range(state.players):
        view = observe(state, me)
        k = knowledge_of(view)
        for _ in range(5):
            hands = sample_hands(k, rng)
            assert_consistent(hands, k)
            assert tuple(h.bit_count() for h in hands) == view.hand_sizes
            if view.phase is Phase.PLAY:
                state_from_view(view, hands)  # the engine accepts the deal


def marginals(deals: list[tuple[int, ...]], seat: int, card: int) -> float:
    return sum(1 for d in deals if d[seat] & card) / len(deals)


def check_uniform(k: Knowledge, samples: int, seed: int, tolerance: float) -> None:
    deals = list(consistent_deals(k.seat, k.hand, k.hidden, k.sizes, k.pinned, k.allowed))
    assert deals, "the position has no consistent deal"
    rng = random.Random(seed)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(samples):
        hands = sample_hands(k, rng)
        assert_consistent(hands, k)
        counts[tuple(hands)] += 1
    assert set(counts) <= set(deals)
    # every consistent deal is reachable...
    assert set(counts) == set(deals)
    # ...each about equally often (checked when each deal is expected often enough for
    # a loose bound to be safe: 5 standard deviations or 20%, whichever is wider)
    expected = samples / len(deals)
    if expected >= 100:
        slack = max(0.2 * expected, 5 * expected ** 0.5)
        for deal in deals:
            assert abs(counts[deal] - expected) <= slack, (
                f"a deal came {counts[deal]} times, expected about {expected:.0f}")
    # and each hidden card lands in each seat in the exact proportion of the deals
    others = [s for s in range(len(k.sizes)) if s != k.seat]
    for card in bits_of(k.hidden):
        for s in others:
            exact = marginals(deals, s, card)
            seen = sum(c for d, c in counts.items() if d[s] & card) / samples
            assert abs(seen - exact) <= tolerance, (
                f"card {card.bit_length() - 1} in seat {s}: {seen:.3f}, exact {exact:.3f}")


def test_sampling_is_uniform_without_restrictions() -> None:
    # 4 players, 9 hidden cards in hands of 2, 3 and 4: 1260 deals, each card lands in a
    # seat in proportion to its size.
    state = position("classic", ["3C 4C", "5D 6D", "7S 8S TC", "9H JH QH KH"], to_act=0)
    k = knowledge_of(observe(state, 0))
    deals = list(consistent_deals(k.seat, k.hand, k.hidden, k.sizes, k.pinned, k.allowed))
    assert len(deals) == 1260
    rng = random.Random(2024)
    samples = 30000
    landed: Counter[tuple[int, int]] = Counter()
    for _ in range(samples):
        hands = sample_hands(k, rng)
        assert_consistent(hands, k)
        for s in (1, 2, 3):
            for card in bits_of(hands[s]):
                landed[card, s] += 1
    for card in bits_of(k.hidden):
        for s, size in ((1, 2), (2, 3), (3, 4)):
            assert abs(landed[card, s] / samples - size / 9) < 0.02


def test_sampling_is_uniform_for_the_president_with_a_restricted_trou() -> None:
    # Seat 0 Président, 1 Neutre, 2 Trou. The Trou gave KH 2D; the Président gave 3S 4C
    # back. Hidden: Neutre 3 cards, Trou 3 cards, one pinned (3S), allowed only below KH.
    state = round_two_position(
        ["KH 2D 7C", "5D KS AC", "3S 6D QS"],
        roles=(P, N, T), exchanges=[(2, 0, "KH 2D", True), (0, 2, "3S 4C", False)],
        to_act=0)
    k = knowledge_of(observe(state, 0))
    assert k.pinned[2] == mask("3S") and k.allowed[2] == mask("3S 5D 6D QS")
    check_uniform(k, samples=12000, seed=7, tolerance=0.03)


def four_player_round_two(to_act: int) -> State:
    """Seat 0 Président, 1 Vice-Président, 2 Vice-Trou, 3 Trou. The Trou gave KH 2D, the
    Vice-Trou KS; the Président gave 3S 4C back (4C since played), the Vice-Président 4H."""
    return round_two_position(
        ["KH 2D 7C", "5D KS AC", "9S 4H 8C", "3S 6D QS"],
        roles=(P, Role.VICE_PRESIDENT, Role.VICE_TROU, T),
        exchanges=[(3, 0, "KH 2D", True), (2, 1, "KS", True), (0, 3, "3S 4C", False),
                   (1, 2, "4H", False)],
        to_act=to_act)


def test_sampling_is_uniform_for_the_trou_with_pinned_cards() -> None:
    state = four_player_round_two(3)
    k = knowledge_of(observe(state, 3))
    assert k.pinned == (mask("KH 2D"), 0, 0, 0)
    assert k.allowed == (k.hidden, k.hidden, k.hidden, 0)
    assert_sound(k, state)
    check_uniform(k, samples=12000, seed=11, tolerance=0.03)


def test_sampling_is_uniform_for_the_vice_president() -> None:
    state = four_player_round_two(1)
    k = knowledge_of(observe(state, 1))
    assert k.pinned == (0, 0, mask("4H"), 0)
    # the Vice-Trou kept only cards below KS (KH is below it), plus the 4H given back
    assert k.allowed[2] == mask("KH 7C 9S 4H 8C 3S 6D QS")
    assert k.allowed[0] == k.allowed[3] == k.hidden
    assert_sound(k, state)
    check_uniform(k, samples=12000, seed=13, tolerance=0.03)


def test_sampling_is_uniform_for_the_president_of_four() -> None:
    state = four_player_round_two(0)
    k = knowledge_of(observe(state, 0))
    assert k.pinned == (0, 0, 0, mask("3S"))
    assert k.allowed[3] == k.hidden & ((1 << 42) - 1)  # every hidden card below KH
    assert_sound(k, state)
    check_uniform(k, samples=12000, seed=17, tolerance=0.03)


def test_sampling_is_reproducible_for_a_seed() -> None:
    state = drive(Rules.preset("full", players=5), 9, 9, 30)
    k = knowledge_of(observe(state, state.to_act))
    a = [sample_hands(k, random.Random(3)) for _ in range(3)]
    b = [sample_hands(k, random.Random(3)) for _ in range(3)]
    assert a == b
