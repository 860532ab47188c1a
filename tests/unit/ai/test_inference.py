"""What the trick's passes suggest about the hidden hands, if the others play as Normal."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import PASS, Play, Rules, State, apply, new_series, observe
from engine.game import generate
from engine.plays import Give
from workers.ai.heuristics import normal_choice, normal_gift
from workers.ai.inference import (
    Evidence, FollowSeen, LeadSeen, PassSeen, beliefs_of, fits, follows_as_normal,
    leads_as_normal, not_normal, round_evidence, sample_believed,
)
from workers.ai.knowledge import knowledge_of

from aihelpers import drive, held_of_rank, mask, position, rules_strategy, seeds

PROPS = settings(deadline=None, derandomize=True, database=None, max_examples=60,
                 suppress_health_check=[HealthCheck.too_slow])


def played(state: State, *moves: tuple[int, str]) -> State:
    """``state`` after each (seat, play text or "pass") in turn."""
    for seat, text in moves:
        action = PASS if text == "pass" else Play.from_str(text)
        state, _ = apply(state, action, seat)
    return state


def samples(state: State, count: int = 200, seed: int = 1, *,
            plays: bool = False) -> list[list[int]]:
    view = observe(state, state.to_act)
    beliefs = beliefs_of(view, knowledge_of(view), plays=plays)
    rng = random.Random(seed)
    return [sample_believed(beliefs, rng) for _ in range(count)]


HANDS = ("3C 5C 9H KS 2D", "4C 6C 7D QH AS", "4D 6D 8C JH 2S", "3D 5D 7C 10S AH")


def test_a_pass_on_a_single_leaves_only_the_cards_that_do_not_beat_it() -> None:
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "pass"),
                   (2, "JH"))
    assert state.to_act == 3
    for hands in samples(state):
        above_nine = sum(held_of_rank(hands[1], r) for r in range(7, 13))  # 10 … 2
        assert above_nine == 0, "seat 1 passed on the 9: it holds nothing above it"
    # seat 0 played and seat 2 did not pass: no belief about them
    assert any(sum(held_of_rank(h[0], r) for r in range(7, 13)) for h in samples(state))


def test_the_pass_is_read_in_the_order_in_force_after_a_revolution() -> None:
    hands = ("3C 5C 9H KS 2D 7S 7H 7C 7D", "4C 6C 8D QH AS", "4D 6D 8C JH 2S",
             "3D 5D 10C 10S AH")
    state = position("cardverse", hands, discard=None)
    state = played(state, (0, "7S 7H 7C 7D"), (1, "pass"), (2, "pass"), (3, "pass"),
                   (0, "9H"), (1, "pass"))
    assert state.reversed and state.to_act == 2
    for h in samples(state):
        below_nine = sum(held_of_rank(h[1], r) for r in range(0, 6))  # 3 … 8: stronger now
        assert below_nine == 0


def test_a_pass_on_a_pair_means_no_pair_above_it() -> None:
    state = position("classic", ("9H 9S 3C", "4C 4D 6C 6D 7C", "8C 8D 10C", "JC QC KC"),
                     discard=None)
    state = played(state, (0, "9H 9S"), (1, "pass"))
    seen_rank_pairs = 0
    for h in samples(state, 300):
        assert not any(held_of_rank(h[1], r) >= 2 for r in range(7, 13))
        seen_rank_pairs += any(held_of_rank(h[1], r) >= 2 for r in range(0, 6))
    assert seen_rank_pairs, "pairs below the 9s stay possible"


def test_a_pass_the_known_cards_contradict_is_dropped() -> None:
    # seat 1 passed on the 3 with 5 cards, though only 2 hidden cards do not beat it
    # (the 3s): it did not play as Normal, so nothing is believed about it
    hands = ("3C 2C", "3D 4C 5C 6C 7C", "3H 8C 9C 10C JC", "3S QC KC AC 2D")
    state = played(position("classic", hands, discard=None), (0, "3C"), (1, "pass"))
    view = observe(state, state.to_act)
    k = knowledge_of(view)
    assert beliefs_of(view, k).knowledge == k
    for h in samples(state, 50):
        assert h[1].bit_count() == 5


def test_every_pass_of_the_round_is_read_with_what_its_seat_played_since() -> None:
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "pass"),
                   (2, "JH"), (3, "pass"), (0, "KS"), (2, "2S"), (0, "pass"))
    assert state.trick == () and state.to_act == 2  # seat 2 won the trick and leads
    state = played(state, (2, "4D"), (3, "pass"), (0, "5C"), (1, "6C"))
    card = Play.from_str
    assert round_evidence(observe(state, 2)).passes == (
        PassSeen(1, card("9H"), False, 0, since=mask("6C")),
        PassSeen(3, card("JH"), False, 0),
        PassSeen(0, card("2S"), False, 0, since=mask("5C")),
        PassSeen(3, card("4D"), False, 0))


def test_the_leads_are_read_too() -> None:
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "pass"),
                   (2, "JH"), (3, "pass"), (0, "KS"), (2, "2S"), (0, "pass"),
                   (2, "4D"), (3, "pass"), (0, "5C"), (1, "6C"))
    assert round_evidence(observe(state, 2)).leads == (
        LeadSeen(0, Play.from_str("9H"), False, since=mask("KS 5C")),
        LeadSeen(2, Play.from_str("4D"), False))


def test_a_lead_leaves_out_the_weaker_ranks_it_cannot_hold_four_of() -> None:
    # seat 0 led the 9: Normal leads its weakest clean group, so it held no 3 … 8 then,
    # except a rank it might hold all four of (the 4s here: all hidden from seat 1)
    hands = ("9H KS 2D 4C 4D 4H 4S", "3C 5C 6C 7C 8C", "3D 5D 6D 7D 8D", "3H 5H 6H 7H 8H")
    state = played(position("classic", hands, discard=None), (0, "9H"))
    seen_fours = 0
    for h in samples(state, 300):
        assert sum(held_of_rank(h[0], r) for r in (0, 2, 3, 4, 5)) == 0  # 3, 5 … 8
        seen_fours += held_of_rank(h[0], 1) == 4
    assert seen_fours, "the four 4s stay possible"


def test_a_clean_straight_led_leaves_out_the_weaker_ranks() -> None:
    hands = ("6H 7H 8H KS", "3C 4C 5C 9C 10C", "3D 4D 5D 9D 10D", "3S 4S 5S 9S 10S")
    state = played(position("club", hands, discard=None, straights=True), (0, "6H-7H-8H"))
    for h in samples(state, 100):
        assert sum(held_of_rank(h[0], r) for r in range(0, 3)) == 0  # no 3, 4 or 5


def test_a_pass_on_an_earlier_trick_counts_with_the_cards_played_since() -> None:
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "pass"),
                   (2, "JH"), (3, "pass"), (0, "KS"), (2, "2S"), (0, "pass"),
                   (2, "4D"), (3, "pass"), (0, "5C"), (1, "6C"))
    for h in samples(state):
        assert sum(held_of_rank(h[1], r) for r in range(7, 13)) == 0  # passed on the 9


def test_a_pass_its_later_plays_contradict_is_dropped() -> None:
    # seat 3 passes on the queen holding the ace, and plays the ace later: not Normal
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "QH"),
                   (2, "pass"), (3, "pass"), (0, "pass"))
    state = played(state, (1, "4C"), (2, "6D"), (3, "AH"))
    assert state.to_act == 0
    view = observe(state, state.to_act)
    k = knowledge_of(view)
    assert PassSeen(3, Play.from_str("QH"), False, 0, since=mask("AH")) in round_evidence(view).passes
    assert beliefs_of(view, k).knowledge.allowed[3] == k.allowed[3]


def test_distrust_drops_every_belief_of_a_seat_shown_once_not_to_play_as_normal() -> None:
    # seat 1 passes on the 9 holding the queen it plays later, then passes on the king:
    # that second pass, not contradicted on its own, no longer says it holds no ace or 2
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "pass"),
                   (2, "JH"), (3, "pass"), (0, "pass"), (2, "8C"), (3, "10S"), (0, "KS"),
                   (1, "pass"), (2, "pass"), (3, "pass"), (0, "3C"), (1, "QH"))
    view = observe(state, 2)
    k = knowledge_of(view)
    assert not_normal(round_evidence(view), k, view.rules) >> 1 & 1
    above_king = mask("AS AH 2D")  # the hidden cards above the king
    assert beliefs_of(view, k).knowledge.allowed[1] & above_king == 0
    assert beliefs_of(view, k, distrust=True).knowledge.allowed[1] == k.allowed[1]
    assert beliefs_of(view, k, distrust=True).knowledge.allowed[1] & above_king == above_king
    # seat 0 too passed on a play it could have beaten (the king): distrusted, the follows
    # of seats 0 and 1 say nothing; seat 3's still does
    assert [f.seat for f in beliefs_of(view, k, plays=True).follows] == [3, 0, 1]
    assert [f.seat for f in beliefs_of(view, k, plays=True, distrust=True).follows] == [3]


def test_a_lead_above_a_card_played_later_shows_a_seat_not_normal() -> None:
    # seat 0 leads the 9 and later leads the 3 it held: Normal would have led the 3 first
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "QH"),
                   (2, "pass"), (3, "AH"), (0, "2D"), (1, "pass"), (3, "pass"), (0, "3C"))
    view = observe(state, state.to_act)
    assert not_normal(round_evidence(view), knowledge_of(view), view.rules) == 1 << 0


def test_the_follows_are_read_with_what_their_seat_played_since() -> None:
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "QH"),
                   (2, "pass"), (3, "AH"), (0, "2D"), (1, "pass"), (3, "pass"), (0, "3C"),
                   (1, "4C"))
    card = Play.from_str
    assert round_evidence(observe(state, 2)).follows == (
        FollowSeen(1, card("9H"), card("QH"), False, 0, since=mask("4C")),
        FollowSeen(3, card("QH"), card("AH"), False, 0),
        FollowSeen(0, card("AH"), card("2D"), False, 0, since=mask("3C")),
        FollowSeen(1, card("3C"), card("4C"), False, 0))


def test_a_follow_leaves_out_the_hands_that_held_a_cleaner_play_for_normal() -> None:
    # seat 1 follows the 9 with the queen: Normal holding the one hidden 10 (a clean
    # single, weaker than the queen) would have played it instead
    state = played(position("classic", HANDS, discard=None), (0, "9H"), (1, "QH"))
    ten = mask("10S")
    assert any(h[1] & ten for h in samples(state)), "without the follows it may hold the 10"
    assert not any(h[1] & ten for h in samples(state, plays=True))


def test_a_lead_leaves_out_the_hands_that_held_a_cleaner_lead_for_normal() -> None:
    # seat 0 leads the 9 with two cards left: the mask keeps the 4s (it might hold all
    # four, a quad it would keep), the exact check drops one to three of them (a clean
    # group it would have led instead)
    hands = ("9H KS 2D", "3C 5C 6C 7C 8C", "4C 4D 10S 10D AH", "4H 4S JH QH AS")
    state = played(position("classic", hands, discard=None), (0, "9H"))
    some_fours = range(1, 4)
    assert any(held_of_rank(h[0], 1) in some_fours for h in samples(state))
    assert not any(held_of_rank(h[0], 1) in some_fours for h in samples(state, plays=True))


def test_a_history_that_does_not_lead_to_the_table_gives_nothing() -> None:
    state = position("classic", HANDS, discard=None, trick=[(0, "9H")], to_act=1)
    assert round_evidence(observe(state, 1)) == Evidence()  # the trick has no play in the log


# --- soundness: with every seat playing Normal, what is believed is true ------------------


def normal_action(state: State):  # type: ignore[no-untyped-def]
    hand = state.hands[state.to_act]
    legal = generate(state)
    if isinstance(legal[0], Give):
        return normal_gift(hand, state.pending[0][2])
    return normal_choice(hand, legal, state.reversed, bool(state.trick))  # type: ignore[arg-type]


@PROPS
@given(rules=rules_strategy(max_rounds=2), seed=seeds, steps=st.integers(0, 120))
def test_beliefs_hold_for_normal_players(rules: Rules, seed: int, steps: int) -> None:
    state = new_series(rules, seed)
    for _ in range(steps):
        nxt, _ = apply(state, normal_action(state))
        if nxt.is_over:
            break
        state = nxt
    me = state.to_act
    view = observe(state, me)
    beliefs = beliefs_of(view, knowledge_of(view))
    for seat, hand in enumerate(state.hands):
        if seat == me:
            continue
        assert hand & ~beliefs.knowledge.allowed[seat] == 0, f"seat {seat}: a card believed out"
    for check in beliefs.checks:
        assert not fits(state.hands[check.seat], check, rules), f"{check} is not true"
    k = knowledge_of(view)
    assert not_normal(round_evidence(view), k, rules) == 0, "a Normal seat shown not Normal"
    assert beliefs_of(view, k, distrust=True) == beliefs_of(view, k)
    for follow in beliefs_of(view, k, plays=True).follows:
        assert follows_as_normal(state.hands[follow.seat], follow, rules), f"{follow} is not true"
    for lead in beliefs_of(view, k, plays=True).leads:
        assert leads_as_normal(state.hands[lead.seat], lead, rules), f"{lead} is not true"


@PROPS
@given(rules=rules_strategy(max_rounds=2), seed=seeds, choice_seed=seeds,
       steps=st.integers(0, 120))
def test_samples_stay_consistent_whoever_passed(rules: Rules, seed: int, choice_seed: int,
                                               steps: int) -> None:
    state = drive(rules, seed, choice_seed, steps)  # random players pass with plays in hand
    view = observe(state, state.to_act)
    k = knowledge_of(view)
    beliefs = beliefs_of(view, k, plays=True)
    rng = random.Random(seed)
    for _ in range(5):
        hands = sample_believed(beliefs, rng)
        assert [h.bit_count() for h in hands] == list(k.sizes)
        assert hands[k.seat] == k.hand
        dealt = 0
        for seat, hand in enumerate(hands):
            assert hand & dealt == 0
            dealt |= hand
            if seat != k.seat:
                assert hand & k.pinned[seat] == k.pinned[seat]
                assert hand & ~k.allowed[seat] == 0
        assert dealt == k.hidden | k.hand
