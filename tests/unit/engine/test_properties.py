"""Property-based tests: random presets x random options x seeds x random legal play.

Every test draws a config (a preset and option overrides, see ``strategies.configs``),
a series seed, and a seed for the random player, then plays a whole series with
random legal actions and checks an invariant along the way.
"""

from __future__ import annotations

import dataclasses
import random
from enum import Enum
from itertools import combinations, permutations
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ALL_CARDS, PASS, AlreadyOut, AlreadyPassed, Card, CardsGiven, Exchange, GameOver, Give,
    IllegalAction, InvalidAction, NotYourTurn, Passed, Phase, Play, PlayKind, Played,
    PresidentError, RoundEnded, RoundStarted, Rules, Skipped, State, TrickWon, View, WentOut,
    apply, apply_unchecked, cards_of, check, is_legal, legal_actions, observe, parse_action,
    redact, replay,
)
from positions import assert_cards_conserved
from strategies import (
    Config, Trace, configs, deck_size, pass_biases, round_bound, run_series, seeds,
)

GAME = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


def series(config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> Trace:
    return run_series(config.rules, seed, choice_seed, pass_bias)


# --- shared checks ---------------------------------------------------------------------


def assert_turn_invariants(state: State) -> None:
    n = state.players
    if state.phase is Phase.OVER:
        assert state.to_act == -1
        assert state.outcome is not None
        assert len(state.results) == state.rules.rounds
        return
    assert state.to_act != -1, "to_act is -1 but the series is not over"
    assert 0 <= state.to_act < n
    out = {s for s in range(n) if not state.hands[s]}
    assert out == set(state.went_out), "seats without cards are exactly those gone out"
    assert len(state.went_out) <= n - 2
    if state.phase is Phase.PLAY:
        assert state.hands[state.to_act], "the seat to act has no cards"
        assert not state.passed >> state.to_act & 1, "the seat to act has already passed"
        assert not state.pending
    else:
        assert state.phase is Phase.EXCHANGE
        assert state.pending and state.to_act == state.pending[0][0]
        assert not state.trick and not state.went_out


def seat_to_act_error(state: State, seat: int) -> type[PresidentError]:
    """The error apply(..., seat=seat) must raise when seat is not the seat to act."""
    if state.phase is Phase.OVER:
        return GameOver
    if not 0 <= seat < state.players:
        return NotYourTurn
    if state.phase is Phase.PLAY and not state.hands[seat]:
        return AlreadyOut
    if state.phase is Phase.PLAY and state.passed >> seat & 1:
        return AlreadyPassed
    return NotYourTurn


def assert_rejected(state: State, action: Any, seat: int | None = None) -> PresidentError:
    with pytest.raises(PresidentError) as info:
        apply(state, action, seat=seat)
    error = info.value
    assert isinstance(error, ValueError)
    assert isinstance(error.code, str) and error.code and error.code != PresidentError.code
    return error


# --- cards, turns, termination ---------------------------------------------------------


@settings(GAME, max_examples=150)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_cards_conserved_and_turns_consistent_at_every_step(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    for state in trace.states:
        assert_cards_conserved(state)
        assert_turn_invariants(state)
    assert trace.final.phase is Phase.OVER


@settings(GAME, max_examples=150)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_every_round_ends_within_a_sound_bound(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    rules = config.rules
    trace = series(config, seed, choice_seed, pass_bias)  # asserts the series bound
    final = trace.final
    assert final.phase is Phase.OVER and final.to_act == -1
    assert [r.round_no for r in final.results] == list(range(1, rules.rounds + 1))

    per_round: dict[int, int] = {}
    for entry in final.log_entries():
        per_round[entry.round_no] = per_round.get(entry.round_no, 0) + 1
    for round_no, count in per_round.items():
        assert count <= round_bound(rules), f"round {round_no} took {count} actions"

    plays = passes = 0
    for event in [e for events in trace.events for e in events]:
        if isinstance(event, Played):
            plays += 1
        elif isinstance(event, (Passed, Skipped)):
            passes += 1
            assert passes <= rules.players - 1 + (rules.play_on_own or rules.lead_pass), \
                "more passes in one trick than other players (and the last to play)"
        elif isinstance(event, TrickWon):
            passes = 0
        elif isinstance(event, RoundStarted):
            plays = passes = 0
        if isinstance(event, RoundEnded):  # (passes alone may end it: pass_limit)
            assert (1 if not rules.pass_limit else 0) <= plays <= deck_size(rules)
            n = rules.players
            assert sorted(event.result.points) == list(range(1, n + 1))
            assert sorted(event.result.ranking) == list(range(n))
    assert final.scores == tuple(
        sum(r.points[s] for r in final.results) for s in range(rules.players))


@settings(GAME, max_examples=100)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_events_describe_the_action_taken(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    for state, action, events in zip(trace.states, trace.actions, trace.events):
        actor = state.to_act
        first = events[0]
        if isinstance(action, Give):
            giver, receiver, count = state.pending[0]
            assert first == CardsGiven(actor, receiver, count, action.cards, automatic=False)
            assert giver == actor
        elif action:
            assert first == Played(actor, action)
        else:
            assert first == Passed(actor)
        for event in events[1:]:
            assert not isinstance(event, (Played, Passed)), "one action, one play or pass"
            if isinstance(event, Skipped):
                assert event.seat != actor, "the player who matched skipped itself"
                assert state.hands[event.seat] and not state.passed >> event.seat & 1
            if isinstance(event, WentOut):
                assert event.seat == actor and action.mask == state.hands[actor]
            if isinstance(event, TrickWon):
                assert event.leader != -1


# --- legal actions -----------------------------------------------------------------------


@settings(GAME, max_examples=80)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_every_listed_action_is_legal_and_applies(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    for state in trace.states[:-1]:
        legal = legal_actions(state)
        listed = list(legal)
        assert legal and listed and len(legal) == len(listed)
        assert len(set(listed)) == len(listed), "an action is listed twice"
        for action in listed:
            assert action in legal
            assert action in legal_actions(state)
            assert is_legal(state, action)
            check(state, action)
            check(state, action, seat=state.to_act)
            after, events = apply(state, action)
            after_seat, events_seat = apply(state, action, seat=state.to_act)
            unchecked_events: list[Any] = []
            assert apply_unchecked(state, action, unchecked_events) == after == after_seat
            assert apply_unchecked(state, action) == after  # the no-events (simulation) path
            own = state._replace()  # a simulation's own copy, changed in place where it can be
            assert apply_unchecked(own, action, None, True) == after
            assert unchecked_events == events == events_seat
            assert parse_action(str(action)) == action, f"{action} does not round-trip"
            if isinstance(action, Give):
                assert state.phase is Phase.EXCHANGE
                assert action.size == state.pending[0][2]
                assert action.mask & ~state.hands[state.to_act] == 0
            else:
                assert state.phase is Phase.PLAY
                assert action.mask & ~state.hands[state.to_act] == 0
    final = trace.final
    assert not legal_actions(final) and list(legal_actions(final)) == []


# every straight window: its cards (rank order; None below the 3 or above the 2, a place
# only a joker takes) and their mask
_WINDOWS = [(places, sum(c.bit for c in places if c))
            for suit in range(4) for length in range(3, 16) for low in range(-1, 15 - length)
            for places in [tuple(ALL_CARDS[(low + i) * 4 + suit] if 0 <= low + i < 13 else None
                                 for i in range(length))]]


def every_play_from(hand: int) -> set[Play]:
    """Brute force: every group, single joker and straight that can be made from
    ``hand``, whatever the rules (built from text, independently of engine.legal)."""
    cards = cards_of(hand)
    jokers = [c for c in cards if c.is_joker]
    joker_sets: list[tuple[Card, ...]] = [()]
    for k in range(1, len(jokers) + 1):
        joker_sets += list(combinations(jokers, k))
    out: set[Play] = {Play.from_cards([j]) for j in jokers}
    for rank in range(13):
        naturals = [c for c in cards if c.rank == rank]
        for k in range(1, len(naturals) + 1):
            for combo in combinations(naturals, k):
                for js in joker_sets:
                    if k + len(js) <= 4 or (k == 4 and len(js) == 1):  # 4 + joker: five
                        out.add(Play.from_cards(combo + js))
                    if js and k + len(js) <= 4:  # each joker naming a free card of the rank
                        taken = {c.suit for c in combo}
                        free = [ALL_CARDS[rank * 4 + s] for s in range(4) if s not in taken]
                        for named in combinations(free, len(js)):
                            out.add(Play.from_str(" ".join(
                                [*map(str, combo), *(f"{j}={c}" for j, c in zip(js, named))])))
    for places, window in _WINDOWS:
        have = hand & window
        length = len(places)
        if not have or length - have.bit_count() > len(jokers):
            continue
        held = {i for i, c in enumerate(places) if c and have & c.bit}
        missing = set(range(length)) - held
        # jokers fill the missing places and may stand in for held naturals
        for count in range(len(missing), len(jokers) + 1):
            for where in combinations(range(length), count):
                if not missing <= set(where) or count == length:
                    continue  # every place filled; a straight needs a natural card
                for order in permutations(jokers, count):
                    texts = [str(c) for c in places]
                    for place, joker in zip(where, order):
                        texts[place] = str(joker)
                    out.add(Play.from_str("-".join(texts)))
    return out


def order_key(play: Play, reversed_: bool) -> tuple[int, ...]:
    """The documented order of legal_actions: groups (and single jokers after the
    singles) by size, then by strength in the order in force, more naturals first; then
    straights by length, strength, suit."""
    if play.kind is PlayKind.STRAIGHT:
        strength = 12 - play.rank if reversed_ else play.high
        return (1, play.size, strength, play.suit)
    if play.kind is PlayKind.JOKER:
        return (0, 1, 13, 1)
    strength = 12 - play.rank if reversed_ else play.rank
    return (0, play.size, strength, play.jokers)


@settings(GAME, max_examples=80)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_legal_actions_are_exactly_the_legal_plays_in_the_documented_order(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    for state in trace.states[:-1]:
        listed = list(legal_actions(state))
        hand = state.hands[state.to_act]
        if state.phase is Phase.EXCHANGE:
            count = state.pending[0][2]
            assert listed == [Give.from_cards(c) for c in combinations(cards_of(hand), count)]
            continue
        if state.trick:
            assert listed[-1] is PASS and PASS not in listed[:-1]
            plays = listed[:-1]
        elif state.rules.lead_pass:
            assert listed[-1] is PASS and PASS not in listed[:-1]
            plays = listed[:-1]
        else:
            assert PASS not in listed
            plays = listed
        keys = [order_key(p, state.reversed) for p in plays]
        assert keys == sorted(keys), "legal_actions out of the documented order"
        oracle = {p for p in every_play_from(hand) if is_legal(state, p)}
        assert oracle == set(plays), (
            f"missing {sorted(map(str, oracle - set(plays)))}, "
            f"extra {sorted(map(str, set(plays) - oracle))}")


def _random_cards(rng: random.Random, pool: tuple[Card, ...], most: int) -> list[Card]:
    if not pool:
        return []
    cards = rng.sample(pool, rng.randint(1, min(most, len(pool))))
    rng.shuffle(cards)
    return cards


_TEXT_TOKENS = [str(c) for c in ALL_CARDS] + [
    "10H", "10s", "7♥", "A♠", "jr", "pass", "give", "-", "", "ZZ", "1", "11C", "J", "R"]


def candidate_actions(state: State, rng: random.Random, legal: list[Any]) -> list[Any]:
    """Random, mostly illegal, actions for the seat to act (7 of the kinds below). Each
    entry is an action or the engine error raised while building it (malformed input)."""
    rules = state.rules
    deck = ALL_CARDS[:deck_size(rules)]
    everything = ALL_CARDS
    seat = max(state.to_act, 0)
    hand = cards_of(state.hands[seat])
    others = [s for s in range(state.players) if s != seat and state.hands[s]]
    builders: list[Any] = []
    for _ in range(3):
        builders.append(lambda: Play.from_cards(_random_cards(rng, hand, 5)))
    builders.append(lambda: Play.from_cards(_random_cards(rng, deck, 4)))
    builders.append(lambda: Play.from_cards(_random_cards(rng, everything, 3)))
    if others:
        other = rng.choice(others)
        builders.append(lambda: Play.from_cards(_random_cards(rng, cards_of(state.hands[other]), 4)))
    plays = [a for a in legal if isinstance(a, Play) and a]
    if plays:
        def swapped() -> Play:
            cards = list(rng.choice(plays).cards)
            cards[rng.randrange(len(cards))] = rng.choice(deck)
            return Play.from_cards(cards)
        builders.append(swapped)

    def straight_text() -> Any:
        suit, length = rng.choice("CDHS"), rng.randint(3, 6)
        low = rng.randint(0, 13 - length)
        jokers = ["JR", "JB"]
        parts = []
        for rank in range(low, low + length):
            if jokers and rng.random() < 0.2:
                parts.append(jokers.pop(0))
            else:
                parts.append("3456789TJQKA2"[rank] + suit)
        return parse_action("-".join(parts))
    builders.append(straight_text)
    builders.append(lambda: parse_action(
        rng.choice([" ", "-", ","]).join(rng.choice(_TEXT_TOKENS) for _ in range(rng.randint(1, 4)))))
    builders.append(lambda: Give.from_cards(_random_cards(rng, hand, 3)))
    builders.append(lambda: Give.from_cards(_random_cards(rng, deck, 2)))
    builders.append(lambda: PASS)
    out = []
    for build in rng.sample(builders, min(len(builders), 7)):
        try:
            out.append(build())
        except PresidentError as error:  # malformed input is refused when it is read
            assert isinstance(error, InvalidAction), repr(error)
            out.append(error)
    return out


@settings(GAME, max_examples=80)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases,
       fuzz_seed=seeds)
def test_illegal_actions_are_rejected_and_change_nothing(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None,
        fuzz_seed: int) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    rng = random.Random(fuzz_seed)
    for i, state in enumerate(trace.states):
        snapshot = tuple(state)
        listed = list(legal_actions(state))
        legal_set = set(listed)
        for action in candidate_actions(state, rng, listed):
            if isinstance(action, PresidentError):
                continue
            expected = action in legal_set
            assert (action in legal_actions(state)) is expected, str(action)
            assert is_legal(state, action) is expected, str(action)
            try:
                apply(state, action)
            except PresidentError as error:
                assert not expected, f"listed action {action} rejected: {error!r}"
                assert isinstance(error, ValueError)
                assert isinstance(error, (IllegalAction, GameOver)), repr(error)
                assert isinstance(error.code, str) and error.code not in (
                    "president_error", "illegal_action")
                with pytest.raises(type(error)):
                    check(state, action)
            else:
                assert expected, f"{action} accepted but not legal ({state.phase})"
            # the wrong seat (or no such seat) is refused whatever the action
            wrong = [s for s in [*range(state.players), -1, state.players]
                     if s != state.to_act or state.phase is Phase.OVER]
            other = rng.choice(wrong)
            error = assert_rejected(state, action, seat=other)
            assert type(error) is seat_to_act_error(state, other), (other, error)
        if listed:  # a legal action by every other seat
            action = rng.choice(listed)
            for other in range(state.players):
                if other != state.to_act:
                    error = assert_rejected(state, action, seat=other)
                    assert type(error) is seat_to_act_error(state, other)
        # nothing changed: same fields, same legal list, and the recorded next step still
        # produces the same state and events
        assert tuple(state) == snapshot
        assert list(legal_actions(state)) == listed
        if i < len(trace.actions):
            after, events = apply(state, trace.actions[i])
            assert after == trace.states[i + 1] and events == trace.events[i]
        else:
            assert state.phase is Phase.OVER
            for action in (PASS, Give.from_cards(ALL_CARDS[:2]), Play.from_str("3C")):
                assert type(assert_rejected(state, action)) is GameOver


_TEXTS = st.one_of(
    st.builds(lambda parts, sep: sep.join(parts),
              st.lists(st.sampled_from(_TEXT_TOKENS), max_size=7),
              st.sampled_from([" ", "-", ",", "", " - ", ", "])),
    st.builds(lambda parts: "give " + " ".join(parts),
              st.lists(st.sampled_from(_TEXT_TOKENS), max_size=4)),
    st.text(max_size=16),
)


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS)
def test_random_action_texts_parse_or_raise_an_engine_error(text: str) -> None:
    try:
        action = parse_action(text)
    except PresidentError as error:
        assert isinstance(error, InvalidAction) and isinstance(error, ValueError)
        assert error.code in ("unknown_card", "duplicate_card", "not_a_play")
        return
    assert parse_action(str(action)) == action
    assert str(parse_action(str(action))) == str(action)


# --- replay and determinism ------------------------------------------------------------


@settings(GAME, max_examples=80)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases,
       cut=st.floats(0, 1))
def test_replay_rebuilds_the_state(config: Config, seed: int, choice_seed: int,
                                   pass_bias: float | None, cut: float) -> None:
    rules = config.rules
    trace = series(config, seed, choice_seed, pass_bias)
    final = trace.final
    assert final.actions() == trace.actions
    assert replay(rules, seed, final.actions()) == final
    k = int(cut * len(trace.actions))
    middle = trace.states[k]
    assert middle.actions() == trace.actions[:k]
    assert replay(rules, seed, middle.actions()) == middle
    # replaying past the end is refused
    with pytest.raises(GameOver):
        replay(rules, seed, [*final.actions(), PASS])


def test_replay_of_a_series_of_the_most_rounds_compares_equal() -> None:
    """``rounds`` goes up to 100: such a series must replay to an equal state too."""
    rules = Rules.preset("classic", players=8, rounds=100)
    trace = run_series(rules, 2024, 7, None)
    final = trace.final
    assert len(final.results) == 100
    assert replay(rules, 2024, final.actions()) == final


def same_state(a: State, b: State) -> bool:
    return a._replace(log=None) == b._replace(log=None) and a.log_entries() == b.log_entries()


@settings(GAME, max_examples=60)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_same_rules_seed_and_choices_give_the_same_series(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    first = run_series(config.rules, seed, choice_seed, pass_bias)
    again = run_series(config.rules, seed, choice_seed, pass_bias)
    # RLCard style: the same sequence of choices (indices in the legal list) replays it
    by_index = run_series(config.rules, seed, 0, None, indices=first.choices)
    for other in (again, by_index):
        assert other.start_events == first.start_events
        assert other.actions == first.actions
        assert other.choices == first.choices
        assert other.events == first.events
        assert len(other.states) == len(first.states)
        assert all(same_state(a, b) for a, b in zip(first.states, other.states))
        assert other.final == first.final
        assert other.final.outcome == first.final.outcome


# --- hidden information ------------------------------------------------------------------


def cards_in(obj: Any) -> int:
    """The mask of every card mentioned anywhere in ``obj`` (a view or part of one)."""
    if obj is None or isinstance(obj, (bool, str, Enum, Rules)):
        return 0
    if isinstance(obj, Card):
        return obj.bit
    if isinstance(obj, (Play, Give, Exchange)):
        return obj.mask
    if isinstance(obj, int):
        return 0  # seats, counts, scores: never a card mask in a view
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        mask = 0
        for f in dataclasses.fields(obj):
            mask |= cards_in(getattr(obj, f.name))
        return mask
    if isinstance(obj, (tuple, list)):
        mask = 0
        for item in obj:
            mask |= cards_in(item)
        return mask
    raise TypeError(f"unexpected {type(obj).__name__} in a view: update cards_in")


def assert_view_hides_other_hands(state: State, seat: int | None) -> None:
    view = observe(state, seat)
    assert isinstance(view, View) and view.seat == seat
    n = state.players
    assert view.hand_sizes == tuple(h.bit_count() for h in state.hands)
    assert len(view.history) == len(state.actions())
    if seat is None:
        assert view.hand == () and view.legal_actions == ()
        hidden = 0
        for s in range(n):
            hidden |= state.hands[s]
        known = 0
    else:
        assert view.hand == cards_of(state.hands[seat])
        mine = seat == state.to_act and state.phase is not Phase.OVER
        assert view.legal_actions == (tuple(legal_actions(state)) if mine else ())
        hidden = 0
        for s in range(n):
            if s != seat:
                hidden |= state.hands[s]
        # what this seat legitimately knows of other hands: the cards it gave this round
        known = 0
        for e in state.exchanges:
            if e.giver == seat:
                known |= e.mask

    # Everything about the current round, history of this round included.
    current = dataclasses.replace(
        view, results=(), result_exchanges=(),
        history=tuple(h for h in view.history if h.round_no == state.round_no))
    leaked = cards_in(current) & hidden & ~known
    assert leaked == 0, f"seat {seat} sees {cards_of(leaked)} of another hand"

    # This round's exchanges: cards only for the giver and the receiver.
    assert len(view.exchanges) == len(state.exchanges)
    for ev, ex in zip(view.exchanges, state.exchanges):
        assert ev.count == ex.mask.bit_count()
        if seat is not None and seat in (ex.giver, ex.receiver):
            assert ev.cards == cards_of(ex.mask)
        else:
            assert ev.cards is None

    # Earlier rounds: plays are public; a gift only for the seat that made it and the one
    # that received it; each round's exchanges all listed, their cards only for those two.
    rounds = [*(r.exchanges for r in state.results), state.exchanges]
    receiver = {(n, e.giver): e.receiver for n, exchanges in enumerate(rounds, start=1)
                for e in exchanges if not e.automatic}
    for entry, logged in zip(view.history, state.log_entries()):
        assert (entry.round_no, entry.seat) == (logged.round_no, logged.seat)
        if isinstance(logged.action, Give) and seat not in (
                entry.seat, receiver[(entry.round_no, entry.seat)]):
            assert entry.action is None
        else:
            assert entry.action == logged.action
    assert len(view.results) == len(view.result_exchanges) == len(state.results)
    for shown, exchanges, result in zip(view.results, view.result_exchanges, state.results):
        assert len(exchanges) == len(result.exchanges)
        for ev, ex in zip(exchanges, result.exchanges):
            assert (ev.giver, ev.receiver, ev.count) == (ex.giver, ex.receiver,
                                                         ex.mask.bit_count())
            sees = seat is not None and seat in (ex.giver, ex.receiver)
            assert ev.cards == (cards_of(ex.mask) if sees else None)
        assert shown == dataclasses.replace(result, exchanges=())


@settings(GAME, max_examples=40)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases,
       sample_seed=seeds)
def test_views_never_show_another_seats_cards(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None,
        sample_seed: int) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    states = trace.states
    # every exchange-phase state, every first state of a round, a random sample, the end
    picked = {i for i, s in enumerate(states) if s.phase is Phase.EXCHANGE}
    picked |= {i for i in range(1, len(states)) if states[i].round_no != states[i - 1].round_no}
    picked |= set(random.Random(sample_seed).sample(range(len(states)), min(10, len(states))))
    picked |= {0, len(states) - 1}
    for i in sorted(picked):
        for seat in [None, *range(states[i].players)]:
            assert_view_hides_other_hands(states[i], seat)
    with pytest.raises(ValueError):
        observe(states[0], states[0].players)


@settings(GAME, max_examples=80)
@given(config=configs(), seed=seeds, choice_seed=seeds, pass_bias=pass_biases)
def test_redact_hides_gifts_from_everyone_else(
        config: Config, seed: int, choice_seed: int, pass_bias: float | None) -> None:
    trace = series(config, seed, choice_seed, pass_bias)
    events = list(trace.start_events) + [e for step in trace.events for e in step]
    n = config.rules.players
    for event in events:
        for seat in [None, *range(n)]:
            shown = redact(event, seat)
            if isinstance(event, CardsGiven):
                assert event.cards is not None and len(event.cards) == event.count
                if seat is not None and seat in (event.giver, event.receiver):
                    assert shown == event
                else:
                    assert shown.cards is None and cards_in(shown) == 0
                    assert dataclasses.replace(shown, cards=event.cards) == event
            elif isinstance(event, RoundEnded):
                assert isinstance(shown, RoundEnded)
                visible = tuple(e for e in event.result.exchanges
                                if seat is not None and seat in (e.giver, e.receiver))
                assert shown.result.exchanges == visible
                assert dataclasses.replace(shown.result, exchanges=()) == \
                    dataclasses.replace(event.result, exchanges=())
            else:
                assert shown == event
