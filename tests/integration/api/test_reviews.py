"""Round reviews over HTTP, on SQLite and PostgreSQL, computed as without a broker (a
thread of the API process, Expert in process): a finished round's decisions weighed from
each human seat's views at the time, computed once and served again; a reader sees its
own seat's analysis and of the others what the events showed; the owner's key sees all
once the series is over; refusals change nothing."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine, select

from apps import inline_app
from engine import ALL_CARDS, Give, Play, apply, new_series, observe, parse_action
from services.commands import CreateKey
from services.handlers.keys import create_key
from services.handlers.quotas import ai_time_used, hour_of
from services.store import Store
from services.store.models import ReviewRow
from played import new_game, play_until
from test_http import assert_problem, bearer

@pytest.fixture
def client(db: Engine, monkeypatch: pytest.MonkeyPatch) -> Iterator[FlaskClient]:
    monkeypatch.setenv("PRESIDENT_RATE_STORAGE", "memory://")
    monkeypatch.setenv("PRESIDENT_REVIEWS_RATE_SEAT", "4/hour")
    with inline_app(db).test_client() as c:
        yield c


def _done(client: FlaskClient, url: str, headers: dict[str, str]) -> dict[str, Any]:
    review = client.get(f"{url}?wait=30", headers=headers).get_json()
    assert review["state"] == "done", review
    return review  # type: ignore[no-any-return]


def test_a_finished_round_is_reviewed_from_each_human_s_views_once(
        client: FlaskClient, db: Engine) -> None:
    game_id, tokens = new_game(client)
    play_until(client, game_id, tokens, rounds_over=1)
    url = f"/v1/games/{game_id}/rounds/1/review"
    asked = client.post(url, headers=bearer(tokens["0"]))
    assert asked.status_code in (200, 202), asked.get_json()
    assert asked.get_json()["state"] in ("queued", "running", "done")
    review = _done(client, url, bearer(tokens["0"]))
    assert review["seats"] == [0, 1] and review["level"] == "expert"
    log = client.get(f"/v1/games/{game_id}/rounds").get_json()["rounds"][0]
    state = new_series(Store(db).reads.get(game_id).state.rules, 11)  # type: ignore[union-attr]
    assert [d["index"] for d in review["decisions"]] == list(range(1, len(review["decisions"]) + 1))
    weighed = 0
    for d in review["decisions"]:
        action = parse_action(d["action"])
        if d["seat"] == 0:  # its own: Expert's legal choice from its view at the time
            view = observe(state, 0)
            assert parse_action(d["best"]) in view.legal_actions
            assert d["lost"] is None or d["lost"] >= 0
            assert (d["lost"] == 0) if d["best"] == d["action"] else True
            if len(view.legal_actions) > 1 and not isinstance(action, Give):
                weighed += 1
                assert d["simulations"] > 0 and d["taken_points"] is not None
                assert d["lost"] == pytest.approx(
                    max(0.0, d["best_points"] - d["taken_points"]), abs=1e-6)
        else:  # another's: only what the events showed
            assert d["best"] is None and d["lost"] is None and d["taken_points"] is None
        state, _ = apply(state, action)
    assert weighed > 0 and len(review["decisions"]) == len(log["actions"])
    assert list(review["totals"]) == ["0"]
    assert review["totals"]["0"] == pytest.approx(
        sum(d["lost"] or 0 for d in review["decisions"] if d["seat"] == 0), abs=1e-2)
    # the other human asks too: the same review, not computed again, seen as seat 1
    again = client.post(url, headers=bearer(tokens["1"]))
    assert again.status_code == 200
    other = again.get_json()
    assert other["finished_at"] == review["finished_at"]
    assert list(other["totals"]) == ["1"]
    assert all((d["best"] is None) == (d["seat"] != 1) for d in other["decisions"])
    with db.connect() as c:
        assert c.execute(select(ReviewRow.attempts)).scalars().all() == [1]


def test_a_reader_sees_no_card_it_did_not_know(client: FlaskClient, db: Engine) -> None:
    game_id, tokens = new_game(client, seed=12)
    play_until(client, game_id, tokens, rounds_over=2)  # round 2 opens with gifts
    url = f"/v1/games/{game_id}/rounds/2/review"
    assert client.post(url, headers=bearer(tokens["0"])).status_code in (200, 202)
    game = Store(db).reads.get(game_id)
    assert game is not None
    for seat in (0, 1):
        review = _done(client, url, bearer(tokens[str(seat)]))
        known = _known_to(game.state, seat, round_no=2)
        shown = {card for d in review["decisions"] for text in (d["action"], d["best"])
                 if text for card in _cards(text)}
        assert shown <= known
        gifts = [d for d in review["decisions"] if d["receiver"] is not None]
        assert all((d["action"] is None) == (seat not in (d["seat"], d["receiver"]))
                   for d in gifts)


def _cards(text: str) -> set[str]:
    action = parse_action(text)
    mask = action.mask if isinstance(action, (Play, Give)) else 0
    return {str(card) for card in ALL_CARDS if mask & card.bit}


def _known_to(state: Any, seat: int, round_no: int) -> set[str]:
    """The cards ``seat`` held during the round (dealt or received) and those played."""
    replayed = new_series(state.rules, state.seed)
    known: set[str] = set()
    for entry in state.log_entries():
        if entry.round_no > round_no:
            break
        if entry.round_no == round_no:
            known |= {str(c) for c in observe(replayed, seat).hand}
            if isinstance(entry.action, Play) or entry.seat == seat:
                known |= _cards(str(entry.action))
        replayed, _ = apply(replayed, entry.action)
    return known | {str(c) for c in observe(replayed, seat).hand}


def test_the_owner_key_sees_every_analysis_once_the_series_is_over(
        client: FlaskClient, db: Engine) -> None:
    _, secret = create_key(CreateKey("app", ("games:create-human", "games:read")),
                           Store(db).uow())
    key = {"X-API-Key": secret}
    game_id, tokens = new_game(client, headers=key)
    play_until(client, game_id, tokens, rounds_over=1, headers=key)
    url = f"/v1/games/{game_id}/rounds/1/review"
    assert client.post(url, headers=key).status_code in (200, 202)
    during = _done(client, url, key)
    assert during["totals"] == {} and all(d["best"] is None for d in during["decisions"])
    play_until(client, game_id, tokens, rounds_over=2, headers=key)
    after = client.get(url, headers=key).get_json()
    assert set(after["totals"]) == {"0", "1"}
    assert all((d["best"] is not None) == (d["seat"] in (0, 1)) for d in after["decisions"])


def test_reviews_are_refused_where_they_must_be(client: FlaskClient, db: Engine) -> None:
    game_id, tokens = new_game(client)
    url = f"/v1/games/{game_id}/rounds/1/review"
    assert_problem(client.post(url, headers=bearer(tokens["0"])), 409, "round_not_over")
    assert_problem(client.post(f"/v1/games/{game_id}/rounds/3/review",
                               headers=bearer(tokens["0"])), 404, "round_not_found")
    assert_problem(client.get(url, headers=bearer(tokens["0"])), 404, "review_not_found")
    assert_problem(client.post(url), 401, "bad_token")
    other_id, other_tokens = new_game(client)
    assert_problem(client.post(url, headers=bearer(other_tokens["0"])), 401, "bad_token")
    assert_problem(client.get(f"{url}?wait=31", headers=bearer(tokens["0"])), 400,
                   "invalid_query")
    assert_problem(client.get(f"{url}?wait=soon", headers=bearer(tokens["0"])), 400,
                   "invalid_query")
    assert_problem(client.post("/v1/games/nope/rounds/1/review", headers=bearer(tokens["0"])),
                   404, "game_not_found")
    forbidding, forbidding_tokens = new_game(client, hints=False)
    play_until(client, forbidding, forbidding_tokens, rounds_over=1)
    assert_problem(client.post(f"/v1/games/{forbidding}/rounds/1/review",
                               headers=bearer(forbidding_tokens["0"])), 403, "hints_forbidden")
    with db.connect() as c:  # nothing was queued by any of them
        assert c.execute(select(ReviewRow.game_id)).all() == []
    play_until(client, other_id, other_tokens, rounds_over=1)
    for n in range(4):  # the seat's limit is 4 an hour; its refusal above, on another game,
        # counted against nobody
        assert client.post(f"/v1/games/{other_id}/rounds/1/review",
                           headers=bearer(other_tokens["0"])).status_code in (200, 202)
    assert_problem(client.post(f"/v1/games/{other_id}/rounds/1/review",
                               headers=bearer(other_tokens["0"])), 429, "rate_limited")


def test_reviews_spend_the_owner_s_ai_time_and_stop_at_its_quota(
        client: FlaskClient, db: Engine) -> None:
    key_row, secret = create_key(CreateKey("app", ("games:create-human", "games:read"),
                                           ai_seconds_per_hour=30), Store(db).uow())
    key = {"X-API-Key": secret}
    game_id, tokens = new_game(client, headers=key)
    play_until(client, game_id, tokens, rounds_over=1, headers=key)
    uow = Store(db).uow

    def used() -> float:
        with uow() as unit:
            return ai_time_used(unit, key_row.id)

    before = used()
    assert client.post(f"/v1/games/{game_id}/rounds/1/review", headers=key).status_code \
        in (200, 202)
    _done(client, f"/v1/games/{game_id}/rounds/1/review", key)
    assert used() > before  # Expert's thinking counted for the owner
    other_id, other_tokens = new_game(client, headers=key)
    play_until(client, other_id, other_tokens, rounds_over=1, headers=key)
    with uow() as unit:  # the hour's allowance spent
        unit.quotas.add_ai_time(key_row.id, hour_of(datetime.now(timezone.utc)), 30.0)
        unit.commit()
    assert_problem(client.post(f"/v1/games/{other_id}/rounds/1/review", headers=key),
                   429, "quota_exceeded")


def test_a_review_s_stream_and_long_poll_hold_a_seat_s_stream_slot(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_STREAMS_PER_SEAT", "1")
    app = inline_app(db)
    client = app.test_client()  # (no block: a streamed response's context outlives it)
    game_id, tokens = new_game(client)
    play_until(client, game_id, tokens, rounds_over=1)
    url = f"/v1/games/{game_id}/rounds/1/review"
    assert client.post(url, headers=bearer(tokens["0"])).status_code in (200, 202)
    slots = app.extensions["president.streams"]
    stream = client.get(f"{url}/stream", headers=bearer(tokens["0"]), buffered=False)
    assert stream.status_code == 200 and slots.open() == 1
    assert_problem(client.get(f"{url}?wait=1", headers=bearer(tokens["0"])), 429,
                   "too_many_streams")
    assert client.get(url, headers=bearer(tokens["0"])).status_code == 200  # no wait
    stream.close()
    assert slots.open() == 0
    assert client.get(f"{url}?wait=1", headers=bearer(tokens["0"])).status_code == 200
    assert slots.open() == 0
