"""Ratings on SQLite and PostgreSQL (docs/ratings.md): a round's update computed by hand
from the Plackett-Luce formulas, each round rated once however often and however
concurrently the rater runs, in the order the rounds ended, leaderboards with their
cursor and ``around``, and a player's figures agreeing with its rounds."""

from __future__ import annotations

import math
from typing import Callable

from sqlalchemy import Engine, func, select

from bootstrap import decide_here
from dealt import create_dealt
from engine import observe
from services.commands import Act, CreateGame, RatingPolicy, RegisterWebhook, SeatSpec
from services.domain import ApiKey, Caller, PlayerRef, rated_player
from services.handlers.games import create_game
from services.handlers.moves import act
from services.handlers.ratings import initial, pool_of, rate_all, rate_pending
from services.handlers.webhooks import register
from services.runtime.inline import InlineScheduler
from services.ports import UnitOfWork
from services.store import Store
from services.store.models import (
    RatedRoundRow, RatingHistoryRow, RatingQueueRow, WebhookMessageRow,
)
from test_webhook_store import POLICY as HOOKS, Allow, Plain
from together import at_once
from workers.ai import LEVELS

UowFactory = Callable[[], UnitOfWork]
KEY = Caller(ApiKey("k1", "app", frozenset({"games:create-human", "games:create-ai",
                                             "games:read"})))
POLICY = RatingPolicy(min_rounds=0)
BETA, TAU, KAPPA = 25 / 6, 25 / 300, 0.0001


def _rated_game(uow_factory: UowFactory, rounds: int = 1, seed: int = 3,
                player: str = "ann") -> tuple[str, str]:
    seats = (SeatSpec("human", player=player), SeatSpec("ai", "easy"),
             SeatSpec("ai", "normal"), SeatSpec("ai", "hard"))
    created = create_dealt(CreateGame("classic", seats, rounds=rounds, seed=seed),
                          uow_factory(), LEVELS, caller=KEY)
    return created.game.game_id, created.tokens[0]


def _play_out(uow_factory: UowFactory, game_id: str, token: str) -> None:
    """The human seat plays Normal's choice; the AI seats play inline."""
    while True:
        with uow_factory() as uow:
            game = uow.games.get(game_id)
        assert game is not None
        if game.status == "over":
            return
        if game.state.to_act == 0:
            action = decide_here(observe(game.state, 0), "normal")
            act(Act(game_id, token, str(action), game.version), uow_factory())


def _queued(db: Engine) -> int:
    with db.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(RatingQueueRow)) or 0)


def _by_hand(before: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """Plackett-Luce's update (Weng and Lin 2011, algorithm 4), one player a team, no
    ties, with OpenSkill's defaults: sigma grows by tau first, gamma is sigma / c."""
    sigmas2 = [s * s + TAU * TAU for _, s in before]
    c = math.sqrt(sum(s2 + BETA * BETA for s2 in sigmas2))
    exps = [math.exp(mu / c) for mu, _ in before]
    sums = [sum(e for e, p in zip(exps, places) if p >= places[q]) for q in range(len(before))]
    after = []
    for i, (mu, _) in enumerate(before):
        omega = delta = 0.0
        for q in range(len(before)):
            if places[q] <= places[i]:
                share = exps[i] / sums[q]
                delta += share * (1 - share)
                omega += (1 - share) if q == i else -share
        s2 = sigmas2[i]
        omega *= s2 / c
        delta *= s2 / c ** 2 * (math.sqrt(s2) / c)
        after.append((mu + omega, math.sqrt(s2) * math.sqrt(max(1 - delta, KAPPA))))
    return after


def test_a_round_updates_each_player_as_plackett_luce_says(
        uow_factory: UowFactory, inline: InlineScheduler, db: Engine) -> None:
    game_id, token = _rated_game(uow_factory, rounds=2)
    _play_out(uow_factory, game_id, token)
    assert _queued(db) == 2  # each round's move queued it
    with uow_factory() as uow:
        game = uow.games.get(game_id)
    assert game is not None
    pool = pool_of(game.preset, len(game.seats), POLICY)
    assert pool == "classic-4"
    refs = [rated_player(seat, game.owner) for seat in game.seats]
    expected = {ref: (initial().mu, initial().sigma) for ref in refs}
    for result in game.state.results:  # by hand, round after round
        places = [result.ranking.index(seat) + 1 for seat in range(4)]
        after = _by_hand([expected[ref] for ref in refs], places)
        expected = dict(zip(refs, after))
    assert rate_pending(uow_factory(), POLICY) == 2
    with uow_factory() as uow:
        stored = uow.ratings.get(pool, refs)  # type: ignore[arg-type]
    for ref in refs:
        mu, sigma = expected[ref]
        assert math.isclose(stored[ref].mu, mu, rel_tol=1e-9), ref
        assert math.isclose(stored[ref].sigma, sigma, rel_tol=1e-9), ref
        assert math.isclose(stored[ref].ordinal, mu - 3 * sigma, rel_tol=1e-9)
        assert stored[ref].rounds == 2
    assert refs[0] == PlayerRef("k1", "ann") and refs[1] == PlayerRef("k1", "ai:easy")
    assert _queued(db) == 0


def test_each_round_is_rated_once_whoever_runs_the_rater_how_often(
        uow_factory: UowFactory, inline: InlineScheduler, db: Engine) -> None:
    games = [_rated_game(uow_factory, rounds=2, seed=seed, player=f"p{seed}")
             for seed in range(3)]
    for game_id, token in games:
        _play_out(uow_factory, game_id, token)
    assert _queued(db) == 6
    at_once(lambda: rate_all(uow_factory, POLICY), 4)  # (an error of one fails the test)
    assert rate_all(uow_factory, POLICY) == 0  # a rater sent once more finds nothing
    with db.connect() as connection:
        rated = connection.execute(select(RatedRoundRow.game_id, RatedRoundRow.round)).all()
        history = connection.execute(
            select(RatingHistoryRow.owner, RatingHistoryRow.player, RatingHistoryRow.game_id,
                   RatingHistoryRow.round).order_by(RatingHistoryRow.id)).all()
    assert sorted(rated) == sorted((g, r) for g, _ in games for r in (1, 2))
    assert len(history) == len(set(history)) == 6 * 4  # one line a player a round
    # in the order the rounds ended: each game's round 1 before its round 2
    for game_id, _ in games:
        rounds = [r for _, _, g, r in history if g == game_id]
        assert rounds == sorted(rounds)


def test_a_round_queued_twice_is_rated_once(uow_factory: UowFactory, inline: InlineScheduler,
                                            db: Engine) -> None:
    game_id, token = _rated_game(uow_factory)
    _play_out(uow_factory, game_id, token)
    with db.begin() as connection:  # (as if the queue had it twice)
        queued = connection.execute(select(RatingQueueRow.__table__)).mappings().one()
        connection.execute(RatingQueueRow.__table__.insert().values(
            {**queued, "id": queued["id"] + 1}))
    assert rate_all(uow_factory, POLICY) == 2
    with db.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(RatingHistoryRow)) == 4


def test_an_unrated_game_queues_nothing(uow_factory: UowFactory, inline: InlineScheduler,
                                        db: Engine) -> None:
    seats = (SeatSpec("human"), SeatSpec("ai", "easy"), SeatSpec("ai", "easy"))
    created = create_dealt(CreateGame("classic", seats, rounds=1, seed=1), uow_factory(),
                          LEVELS)
    _play_out(uow_factory, created.game.game_id, created.tokens[0])
    assert _queued(db) == 0


def test_leaderboards_page_by_cursor_and_show_a_player_among_its_neighbours(
        uow_factory: UowFactory, inline: InlineScheduler) -> None:
    for seed in range(6):
        game_id, token = _rated_game(uow_factory, seed=seed, player=f"p{seed}")
        _play_out(uow_factory, game_id, token)
    rate_all(uow_factory, POLICY)
    with uow_factory() as uow:
        everyone = uow.ratings.board("classic-4", "k1", 0, 100, None)
        other_key = uow.ratings.board("classic-4", "k2", 0, 100, None)
    # the key's 6 players and the 3 AI levels, best ordinal first, ranked 1..9
    assert [s.rank for s in everyone] == list(range(1, 10))
    ordinals = [s.rating.ordinal for s in everyone]
    assert ordinals == sorted(ordinals, reverse=True)
    assert other_key == []  # another key rates the AI levels apart: none of k1's rounds
    pages, after = [], None
    while True:
        with uow_factory() as uow:
            page = uow.ratings.board("classic-4", "k1", 0, 4, after)
        if not page:
            break
        pages += page
        last = page[-1]
        after = (last.rating.ordinal, last.ref.owner, last.ref.player, last.rank)
    assert pages == everyone
    middle = everyone[4]
    with uow_factory() as uow:
        around = uow.ratings.around("classic-4", "k1", middle.ref, 0, 2)
        top = uow.ratings.around("classic-4", "k1", everyone[0].ref, 0, 2)
        unseen = uow.ratings.around("classic-4", "k2", PlayerRef("k1", "p0"), 0, 2)
        minimum = uow.ratings.board("classic-4", "k1", 2, 100, None)
    assert around == everyone[2:7]
    assert top == everyone[:3]
    assert unseen == []  # another key's player is on no board this key sees
    # the key's players: a round each; the AI levels (the key's view of them): six
    assert {s.ref.player for s in minimum} == {"ai:easy", "ai:normal", "ai:hard"}


def test_a_players_figures_agree_with_its_rounds(uow_factory: UowFactory,
                                                 inline: InlineScheduler) -> None:
    for seed in range(3):
        game_id, token = _rated_game(uow_factory, rounds=2, seed=seed)
        _play_out(uow_factory, game_id, token)
    rate_all(uow_factory, POLICY)
    with uow_factory() as uow:
        (summary,) = uow.ratings.summaries("k1", "ann")
        history = uow.ratings.history("k1", "ann", 100)
        games = [uow.games.get(g) for g in {r.game_id for _, r in history}]
    places = []
    for game in games:
        assert game is not None
        places += [(r.roles[0].value, r.points[0]) for r in game.state.results]
    assert summary.rating.rounds == len(history) == len(places) == 6
    assert summary.series == 3
    assert summary.presidents == sum(role == "president" for role, _ in places)
    assert summary.trous == sum(role == "trou" for role, _ in places)
    assert summary.points == sum(points for _, points in places)
    assert math.isclose(summary.mean_points, summary.points / 6)
    assert history[0][1].rating.ordinal == summary.rating.ordinal  # newest first


def test_a_rated_round_tells_the_key_s_webhooks_its_players_new_ratings(
        store: Store, uow_factory: UowFactory, inline: InlineScheduler, db: Engine) -> None:
    hooked = Caller(ApiKey("k1", "app", frozenset({"webhooks", "games:create-human",
                                                   "games:create-ai", "games:read"})))
    register(RegisterWebhook("https://hooks.example.com/", ("rating.changed",)), store.uow(),
             hooked, Allow(), Plain(), HOOKS)
    game_id, token = _rated_game(uow_factory)
    _play_out(uow_factory, game_id, token)
    rate_all(uow_factory, POLICY)
    with db.connect() as connection:
        sent = connection.execute(select(WebhookMessageRow.type, WebhookMessageRow.data)).all()
    assert [kind for kind, _ in sent] == ["rating.changed"]  # ann's, not the AI levels'
    data = sent[0][1]
    with uow_factory() as uow:
        stored = uow.ratings.get("classic-4", [PlayerRef("k1", "ann")])[PlayerRef("k1", "ann")]
    assert (data["player_id"], data["pool"], data["game_id"], data["round"]) == (
        "ann", "classic-4", game_id, 1)
    assert math.isclose(data["ordinal"], stored.ordinal) and data["rounds"] == 1
