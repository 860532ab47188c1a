"""A worker trusts no request: is this view one a real game could have produced?

The checks end with the engine itself: the view's hidden cards are dealt to the other
seats in one consistent way, the state is rebuilt, and the engine's legal actions for
the deciding seat must be exactly the ones the request lists.
"""

from __future__ import annotations

import random

from engine import Phase, View, mask_of
from engine.determinize import state_from_view
from engine.game import generate
from workers.ai.knowledge import knowledge_of, sample_hands


# Any consistent deal of the hidden cards will do: the deciding seat's legal actions do
# not depend on the other hands. One generator, not seeded per call (seeding costs).
_ANY_DEAL = random.Random(0)


def check_view(view: View) -> None:
    """Raise ``ValueError`` with the reason if ``view`` cannot come from a real game."""
    n = view.rules.players
    seat = view.seat
    _need(seat is not None and 0 <= seat < n, f"seat {seat} is not a seat of a {n}-player table")
    assert seat is not None
    _need(view.phase is not Phase.OVER, "the series is over: there is nothing to decide")
    _need(view.to_act == seat, f"seat {view.to_act} is to act, not seat {seat}")
    _need(bool(view.legal_actions), "the request lists no legal action")
    _need(len(view.hand_sizes) == n and len(view.scores) == n,
          f"hand_sizes and scores need one entry per seat ({n})")
    _need(view.roles is None or len(view.roles) == n, f"roles need one entry per seat ({n})")
    _need(view.hand_sizes[seat] == len(view.hand),
          f"hand_sizes says seat {seat} holds {view.hand_sizes[seat]} cards, the hand has "
          f"{len(view.hand)}")
    _check_seats(view, n)
    if view.phase is Phase.EXCHANGE:
        _need(bool(view.pending) and view.pending[0][0] == seat,
              f"in the exchange phase seat {seat} must owe the first gift")
    else:
        _need(not view.pending, "gifts are owed only in the exchange phase")
    _check_cards_disjoint(view)
    try:
        state = state_from_view(view, sample_hands(knowledge_of(view), _ANY_DEAL))
    except ValueError as exc:
        raise ValueError(f"the view's cards do not add up: {exc}") from None
    listed, expected = set(view.legal_actions), set(generate(state))
    if listed != expected:  # (counted, not named: the message reaches logs and spans)
        wrong, missing = len(listed - expected), len(expected - listed)
        raise ValueError("the legal actions do not fit the hand and the table"
                         + (f"; {wrong} listed not legal" if wrong else "")
                         + (f"; {missing} legal missing" if missing else ""))


def _check_seats(view: View, n: int) -> None:
    """Every seat number anywhere in the view is a seat of the table."""
    named = {
        "passed": view.passed, "went_out": view.went_out, "penalized": view.penalized,
        "trick": [s for s, _ in view.trick], "leader": [view.leader],
        "pending": [s for g, r, _ in view.pending for s in (g, r)],
        "exchanges": [s for e in view.exchanges for s in (e.giver, e.receiver)],
        "history": [h.seat for h in view.history],
        "results": [s for r in view.results
                    for s in (*r.went_out, *r.ranking, *r.penalized,
                              *(x for e in r.exchanges for x in (e.giver, e.receiver)))],
    }
    for name, seats in named.items():
        _need(all(0 <= s < n for s in seats), f"{name} names a seat that does not exist")


def _check_cards_disjoint(view: View) -> None:
    seen = mask_of(view.hand)
    for part, cards in [("discard", mask_of(view.discard))] + [
            ("trick", play.mask) for _, play in view.trick]:
        _need(not seen & cards, f"a card of the {part} is also in the hand or elsewhere")
        seen |= cards


def _need(ok: bool, message: str) -> None:
    if not ok:
        raise ValueError(message)
