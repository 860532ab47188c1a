"""Hypothesis strategies and a random-series driver shared by the property tests.

A *config* is a preset name plus option overrides (``Rules.preset(name, **overrides)``),
so a falsifying example prints as something one can paste. A series is driven by a
``random.Random`` seeded from a drawn integer: hypothesis draws the seed, not every
choice, which keeps long series inside hypothesis' buffer and makes them reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from hypothesis import strategies as st

from engine import (
    Action, Event, Phase, Rules, State, apply, legal_actions, new_series_with_events,
)
from rule_strategies import preset_overrides


class Config(NamedTuple):
    preset: str
    overrides: dict[str, Any]

    @property
    def rules(self) -> Rules:
        return Rules.preset(self.preset, **self.overrides)


def configs(max_rounds: int = 3) -> st.SearchStrategy[Config]:
    """A preset with random overrides (see ``tests/rule_strategies.py``)."""
    return preset_overrides(max_rounds=max_rounds).map(lambda t: Config(*t))


# How the random player chooses: None = uniformly among the legal actions; otherwise
# the probability of passing whenever passing is legal (plays uniformly otherwise).
pass_biases = st.sampled_from([None, 0.05, 0.3, 0.6])
seeds = st.integers(0, 2**32 - 1)


def choose(rng: random.Random, actions: list[Action], pass_bias: float | None) -> int:
    """The index of the chosen action in ``actions``."""
    if pass_bias is None or len(actions) == 1:
        return rng.randrange(len(actions))
    passes = [i for i, a in enumerate(actions) if not a]  # only the pass is falsy
    plays = [i for i, a in enumerate(actions) if a]
    if passes and (not plays or rng.random() < pass_bias):
        return passes[0]
    return rng.choice(plays)


def deck_size(rules: Rules) -> int:
    return 52 + rules.jokers


def deck_mask(rules: Rules) -> int:
    return (1 << deck_size(rules)) - 1


def round_bound(rules: Rules) -> int:
    """A sound upper bound on the actions of one round.

    At most 2 exchange gifts; every play removes at least one card from the hands and a
    round ends once a single player holds cards, so at most ``deck`` plays; every trick
    starts with a play, so at most ``deck`` tricks, and passing is final, so at most
    ``players - 1`` passes (or skips) per trick, ``players`` with ``play_on_own`` (the last
    to play passes too). Total <= 2 + deck * players (+ deck).

    With ``lead_pass`` a trick may also open with passes, and only ``pass_limit`` bounds a
    run of passes (the rule strategy sets it): at most ``pass_limit`` passes before each
    play and at the end, 2 + deck + (deck + 1) * pass_limit.
    """
    if rules.lead_pass:
        assert rules.pass_limit, "lead passes without a pass limit: no bound"
        return 2 + deck_size(rules) + (deck_size(rules) + 1) * rules.pass_limit
    return 2 + deck_size(rules) * (rules.players + rules.play_on_own)


def series_bound(rules: Rules) -> int:
    return rules.rounds * round_bound(rules)


@dataclass
class Trace:
    """A random series: ``states[i]`` --``actions[i]``--> ``states[i + 1]``."""

    rules: Rules
    seed: int
    start_events: list[Event]
    states: list[State] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    events: list[list[Event]] = field(default_factory=list)
    choices: list[int] = field(default_factory=list)  # index chosen in the legal list

    @property
    def final(self) -> State:
        return self.states[-1]


def run_series(rules: Rules, seed: int, choice_seed: int, pass_bias: float | None,
               *, indices: list[int] | None = None) -> Trace:
    """Play a whole series with random legal actions (or the given legal-list indices).

    Fails (AssertionError) if the series does not end within ``series_bound``."""
    state, events = new_series_with_events(rules, seed)
    trace = Trace(rules, seed, events, states=[state])
    rng = random.Random(choice_seed)
    bound = series_bound(rules)
    while state.phase is not Phase.OVER:
        assert len(trace.actions) < bound, (
            f"series still running after {bound} actions (sound bound exceeded)")
        actions = list(legal_actions(state))
        assert actions, f"no legal action in phase {state.phase} for seat {state.to_act}"
        if indices is None:
            index = choose(rng, actions, pass_bias)
        else:
            index = indices[len(trace.actions)]
        action = actions[index]
        state, new_events = apply(state, action)
        trace.states.append(state)
        trace.actions.append(action)
        trace.events.append(new_events)
        trace.choices.append(index)
    return trace
