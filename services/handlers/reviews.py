"""Round reviews (docs/ai.md#reviews): once a round is over, Expert weighs every decision
a human seat made in it, from that seat's view at the time, against the action taken.

Asked for with a seat's token or the game's owner key, a review is queued (one a round:
asked again, the same review answers, computed once), computed by a worker of the reviews
queue (``review_round``), and read while it runs and once done. What a reader sees of it
is what it saw of the round (``seen_by``): the analysis of its own seat's decisions, the
others' decisions as the events showed them; the owner's key sees every analysis once the
series is over, when the export shows every deal anyway."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from datetime import datetime, timezone
from typing import Callable

from engine import Give, apply, new_series, observe
from engine.plays import Action
from engine.state import State
from services.commands import ReviewPolicy
from services.domain import LARGEST_NUMBER, Caller, Decision, Game, Review
from services.errors import (
    BadToken, GameNotFound, HintsForbidden, QuotaExceeded, ReviewNotFound, RoundNotFound,
    RoundNotOver, Unavailable,
)
from services.handlers.common import read, seat_of, visible
from services.handlers.turns import charge_ai_time, refuse_past_quota
from services.ports import Adviser, Reads, ReviewQueue, UnitOfWork

log = logging.getLogger(__name__)

REVIEW_LEVEL = "expert"
ATTEMPTS = 3  # runs a review may start (a worker lost each time) before it fails
OPEN_PER_OWNER = 20  # reviews of one owner's games queued or running at once
FINISHED = ("done", "failed")


def request_review(game_id: str, round_no: int, token: str | None, caller: Caller,
                   reads: Reads, uow_factory: Callable[[], UnitOfWork],
                   queue: ReviewQueue) -> Review:
    """The round's review, queued if nobody asked for it before (then handed to
    ``queue``), as the caller may see it."""
    game = read(reads, game_id, token=token)
    seat = _reader(game, token, caller)
    _check_round(game, round_no)
    if not game.table.hints and not game.state.is_over:
        raise HintsForbidden("this game was made without hints: its rounds are reviewed "
                             "once the series is over")
    with uow_factory() as uow:
        review = uow.reviews.get(game_id, round_no)
        if review is None:
            refuse_past_quota(uow, game)
            if game.owner is not None and uow.reviews.queued(game.owner) >= OPEN_PER_OWNER:
                raise QuotaExceeded(f"{OPEN_PER_OWNER} reviews of this owner's games are "
                                    "under way: ask again once they are done")
            added = uow.reviews.add(Review(game_id, round_no, "queued", game.owner,
                                           datetime.now(timezone.utc)))
            uow.commit()
            review = uow.reviews.get(game_id, round_no)
            if added:  # (else another request added it a moment ago, and handed it over)
                _hand_over(queue, game_id, round_no)
    assert review is not None
    return seen_by(review, seat, _sees_all(game, seat))


def read_review(game_id: str, round_no: int, token: str | None, caller: Caller,
                reads: Reads, uow_factory: Callable[[], UnitOfWork]) -> Review:
    game = read(reads, game_id, token=token)
    seat = _reader(game, token, caller)
    with uow_factory() as uow:  # (a number past what is stored has no review)
        review = uow.reviews.get(game_id, round_no) if round_no <= LARGEST_NUMBER else None
    if review is None:
        raise ReviewNotFound(f"nobody asked for the review of round {round_no} of game "
                             f"{game_id!r}: POST it first")
    return seen_by(review, seat, _sees_all(game, seat))


def wait_for_review(game_id: str, round_no: int, token: str | None, caller: Caller,
                    reads: Reads, uow_factory: Callable[[], UnitOfWork], wait_s: float,
                    give_up: Callable[[], bool] = lambda: False, since: Review | None = None,
                    poll_s: float = 0.25) -> Review:
    """``read_review``, waiting up to ``wait_s`` for it to finish or (``since``) to have
    moved on from that reading (long polling, the event stream)."""
    ends = time.monotonic() + wait_s
    while True:
        review = read_review(game_id, round_no, token, caller, reads, uow_factory)
        moved = since is not None and (review.state, review.done) != (since.state, since.done)
        if review.state in FINISHED or moved or time.monotonic() >= ends or give_up():
            return review
        time.sleep(min(poll_s, max(0.0, ends - time.monotonic())))


def _reader(game: Game, token: str | None, caller: Caller) -> int | None:
    """The seat the caller reads the review as: its token's, or None for the game's
    owner key. Nobody else asks for one (it spends the owner's AI time)."""
    if token is not None:
        return seat_of(game, token, caller).seat
    if caller.key is not None and game.owner == caller.key.id:
        return None
    if not visible(game, caller):  # (no refusal tells a private game exists)
        raise GameNotFound(f"no game {game.id!r}")
    raise BadToken("a review is asked for with a seat's token of the game "
                   "('Authorization: Bearer <token>') or the key that made it")


def _sees_all(game: Game, seat: int | None) -> bool:
    return seat is None and game.state.is_over


def _check_round(game: Game, round_no: int) -> None:
    played = game.state.round_no if game.status in ("active", "over") else 0
    if not 1 <= round_no <= played:
        raise RoundNotFound(f"round {round_no} has not been played in game {game.id!r}")
    if round_no > len(game.state.results):
        raise RoundNotOver(f"round {round_no} is under way: it is reviewed once over")


def _hand_over(queue: ReviewQueue, game_id: str, round_no: int) -> None:
    try:
        queue.review(game_id, round_no)
    except Exception as error:  # noqa: BLE001 - queued in the database: the sweeper sends it
        log.warning("review of %s round %d not handed over (%s): the sweeper will",
                    game_id, round_no, error)


def seen_by(review: Review, seat: int | None, everything: bool) -> Review:
    """The review as ``seat`` (None: the owner's key) may read it: the analysis of its
    own decisions (of all, with ``everything``), a gift's cards if it gave or got them."""
    def shown(d: Decision) -> Decision:
        if everything or d.seat == seat:
            return d
        hidden = d.receiver is not None and seat != d.receiver
        return Decision(d.index, d.seat, None if hidden else d.action, d.receiver)

    return replace(review, decisions=tuple(shown(d) for d in review.decisions),
                   totals={s: lost for s, lost in review.totals.items()
                           if everything or s == seat})


# -- computing (a worker of the reviews queue) ---------------------------------------------


def review_round(game_id: str, round_no: int | None, uow_factory: Callable[[], UnitOfWork],
                 adviser: Adviser, policy: ReviewPolicy,
                 clock: Callable[[], float] = time.monotonic) -> Review | None:
    """Claim the round's review (``round_no`` None: the oldest waiting of any game) and
    compute it; None when there is none to do (done, or running elsewhere). An AI that
    cannot be reached leaves it to the sweeper, to try again later."""
    with uow_factory() as uow:
        review = uow.reviews.claim(game_id, round_no, policy.lease_s)
        uow.commit()
    if review is None:
        return None
    if review.attempts > ATTEMPTS:  # each run so far was lost with its worker
        return _finish(uow_factory, replace(review, state="failed",
                                            error="the review could not be computed"), 0.0)
    with uow_factory() as uow:
        game = uow.games.get(review.game_id)
    assert game is not None  # (a review's game is kept with it)
    started = clock()

    def progress(done: int) -> None:
        with uow_factory() as uow:
            uow.reviews.progress(review.game_id, review.round_no, done, policy.lease_s)
            uow.commit()

    try:
        decisions = weigh_round(game, review.round_no, adviser, policy.budget_ms, progress)
    except Unavailable as error:
        log.warning("review of %s round %d: %s; the sweeper sends it again",
                    review.game_id, review.round_no, error)
        return None
    reviewed = reviewed_seats(game)
    totals = {seat: round(sum(d.lost or 0.0 for d in decisions if d.seat == seat), 3)
              for seat in reviewed}
    done = replace(review, state="done", seats=reviewed, decisions=decisions, totals=totals,
                   done=sum(1 for d in decisions if d.best is not None))
    return _finish(uow_factory, done, clock() - started)


def _finish(uow_factory: Callable[[], UnitOfWork], review: Review, seconds: float) -> Review:
    with uow_factory() as uow:
        uow.reviews.finish(review)
        if review.owner is not None and seconds:
            charge_ai_time(uow, review.owner, seconds)
        uow.commit()
    return review


def reviewed_seats(game: Game) -> tuple[int, ...]:
    """The seats a review weighs: the human ones (and those an AI took over from one)."""
    return tuple(s.seat for s in game.seats if s.kind == "human" or s.player is not None)


def weigh_round(game: Game, round_no: int, adviser: Adviser, budget_ms: float,
                progress: Callable[[int], None] = lambda done: None) -> tuple[Decision, ...]:
    """Every decision of the round, replayed from the series' start; those of the seats
    reviewed weighed by Expert from the seat's view at the time."""
    reviewed = set(reviewed_seats(game))
    state: State = new_series(game.state.rules, game.state.seed)
    decisions: list[Decision] = []
    weighed = 0
    for entry in game.state.log_entries():
        if entry.round_no > round_no:
            break
        if entry.round_no == round_no:
            index = len(decisions) + 1
            receiver = (next(r for g, r, _ in state.pending if g == entry.seat)
                        if isinstance(entry.action, Give) else None)
            decision = Decision(index, entry.seat, str(entry.action), receiver)
            if entry.seat in reviewed:
                decision = _weigh(state, decision, entry.action, adviser, budget_ms,
                                  seed=round_no * 1000 + index)
                weighed += 1
                progress(weighed)
            decisions.append(decision)
        state, _ = apply(state, entry.action)
    return tuple(decisions)


def _weigh(state: State, decision: Decision, taken: Action, adviser: Adviser,
           budget_ms: float, seed: int) -> Decision:
    view = observe(state, decision.seat)
    assert taken in view.legal_actions
    if len(view.legal_actions) == 1:  # no choice: nothing to weigh
        return replace(decision, best=decision.action, lost=0.0)
    hint = adviser.advise(view, REVIEW_LEVEL, seed, budget_ms, also=taken)
    points = {c.action: round(c.expected_points, 3) for c in hint.candidates}
    mine, best = points.get(str(taken)), points.get(hint.action)
    if hint.action == decision.action:
        lost: float | None = 0.0
    elif mine is not None and best is not None:
        lost = round(max(0.0, best - mine), 3)
    else:
        lost = None  # a gift Expert would have made otherwise: chosen by rule, not weighed
    return replace(decision, best=hint.action, taken_points=mine, best_points=best,
                   lost=lost, simulations=sum(c.simulations for c in hint.candidates))


def send_stale(uow_factory: Callable[[], UnitOfWork], queue: ReviewQueue,
               policy: ReviewPolicy, limit: int = 100) -> int:
    """Send again the reviews whose task was lost: not started within its expiry, or
    its run's lease over (at most once an expiry each, so a backlog is never doubled)."""
    with uow_factory() as uow:
        stale = uow.reviews.send_again(policy.expires_s, limit)
        uow.commit()
    for game_id, round_no in stale:
        _hand_over(queue, game_id, round_no)
    return len(stale)
