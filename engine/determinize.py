"""A full state from a view and a guess of the hidden hands, for simulation.

An AI that searches samples the hands it cannot see, consistently with its view,
then simulates with the engine from the resulting ``State``. The simulated
series ends with the current round (future deals depend on the seed, which no
view reveals), and the state carries no action log.
"""

from __future__ import annotations

from typing import Sequence

from engine.cards import deck_mask, mask_of
from engine.observe import View
from engine.state import State


def hidden_cards(view: View) -> int:
    """The cards the viewer cannot locate from the view alone: the deck less its own hand,
    the table and the discard."""
    table = 0
    for _, play in view.trick:
        table |= play.mask
    return deck_mask(view.rules.jokers) & ~(mask_of(view.hand) | table | mask_of(view.discard))


def state_from_view(view: View, hands: Sequence[int], *, check: bool = True) -> State:
    """The state the view would come from if the seats held ``hands`` (one mask per seat;
    ``check=False`` takes them as they are, for a caller replaying public actions)."""
    if view.seat is None:
        raise ValueError("a spectator has no hand to simulate from")
    if check:
        _check_hands(view, hands)
    return State(
        rules=view.rules.with_options(rounds=view.round_no), seed=0, round_no=view.round_no,
        phase=view.phase, hands=tuple(hands), to_act=view.to_act, trick=view.trick,
        passed=sum(1 << s for s in view.passed), discard=mask_of(view.discard),
        reversed=view.reversed, went_out=view.went_out,
        penalized=sum(1 << s for s in view.penalized), roles=view.roles, scores=view.scores,
        pending=view.pending, exchanges=(), results=view.results, log=(), past_logs=(),
        leader=view.leader)


def _check_hands(view: View, hands: Sequence[int]) -> None:
    if len(hands) != view.players:
        raise ValueError(f"{len(hands)} hands for {view.players} seats")
    assert view.seat is not None
    if hands[view.seat] != mask_of(view.hand):
        raise ValueError("the viewer's own hand must be kept as it is")
    seen = 0
    for seat, hand in enumerate(hands):
        if hand & seen:
            raise ValueError("a card is in two hands")
        if hand.bit_count() != view.hand_sizes[seat]:
            raise ValueError(f"seat {seat} holds {view.hand_sizes[seat]} cards, not "
                             f"{hand.bit_count()}")
        seen |= hand
    if seen != hidden_cards(view) | mask_of(view.hand):
        raise ValueError("the hands must hold exactly the cards not on the table or discarded")
