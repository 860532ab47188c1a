"""Round reviews on the real system: asked over HTTP, computed by a Celery worker of the
reviews queue asking the gRPC AI workers for each decision, stored once; and a backlog
of reviews never delays the AI turns of a live game (their queues and workers apart)."""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

import pytest
import requests

from stack import BACKENDS, Stack, make_backend
from test_webhooks_delivered import _key, _until

REVIEWS = {"PRESIDENT_REVIEW_BUDGET_MS": "100", "PRESIDENT_REVIEWS_RATE_KEY": "1000/hour",
           "PRESIDENT_REVIEWS_RATE_SEAT": "1000/hour"}


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _mine(url: str, game_id: str, token: str) -> Any:
    return requests.get(f"{url}/v1/games/{game_id}", headers=_bearer(token), timeout=10).json()


def _move(url: str, game_id: str, token: str, view: Any) -> None:
    legal = view["view"]["legal_actions"]
    action = next((a for a in legal if a != "pass"), legal[0])
    moved = requests.post(f"{url}/v1/games/{game_id}/actions", headers=_bearer(token),
                          timeout=10, json={"action": action, "version": view["version"]})
    assert moved.status_code in (200, 409), moved.text  # (409: the view was a step behind)


def _my_turn(url: str, game_id: str, token: str, stack: Stack, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    while True:
        view = _mine(url, game_id, token)
        if view["view"]["legal_actions"] or view["status"] == "over":
            return view
        assert time.monotonic() < deadline, stack.logs()
        time.sleep(0.02)


def _wait_done(url: str, path: str, headers: dict[str, str], stack: Stack) -> Any:
    deadline = time.monotonic() + 180
    while True:
        review = requests.get(f"{url}{path}?wait=30", headers=headers, timeout=40).json()
        if review["state"] in ("done", "failed"):
            return review
        assert time.monotonic() < deadline, stack.logs()


@pytest.mark.parametrize("name", BACKENDS)
def test_a_round_is_reviewed_through_celery_and_the_grpc_workers_once(
        name: str, tmp_path: Any) -> None:
    stack = Stack(make_backend(name, tmp_path), tmp_path, settings=dict(REVIEWS))
    try:
        stack.start_ai_worker()
        turns = stack.start_celery_worker("--queues", "ai.easy,turns.maintenance")
        reviewer = stack.start_celery_worker("--queues", "reviews")
        stack.start_api()
        url = stack.api_urls[0]
        made = requests.post(f"{url}/v1/games", timeout=10, json={
            "preset": "classic", "rounds": 2, "seed": 4, "seats": [
                {"kind": "human"}, {"kind": "ai", "engine": "easy"},
                {"kind": "ai", "engine": "easy"}]}).json()
        game_id, token = made["game"]["game_id"], made["tokens"]["0"]
        while not (view := _my_turn(url, game_id, token, stack))["view"]["results"]:
            _move(url, game_id, token, view)
        path = f"/v1/games/{game_id}/rounds/1/review"
        asked = requests.post(f"{url}{path}", headers=_bearer(token), timeout=10)
        assert asked.status_code == 202 and asked.json()["state"] == "queued", asked.text
        review = _wait_done(url, path, _bearer(token), stack)
        assert review["state"] == "done" and review["seats"] == [0], review
        rounds = requests.get(f"{url}/v1/games/{game_id}/rounds", timeout=10).json()
        assert len(review["decisions"]) == len(rounds["rounds"][0]["actions"])
        mine = [d for d in review["decisions"] if d["seat"] == 0]
        assert mine and all(d["best"] is not None and d["lost"] is not None for d in mine)
        assert any(d["simulations"] > 0 for d in mine)  # Expert searched, over gRPC
        assert all(d["best"] is None for d in review["decisions"] if d["seat"] != 0)
        ran = "Task president.review_round["  # (a worker's log line for each task it runs)
        assert ran in reviewer.log.read_text(errors="replace")
        assert ran not in turns.log.read_text(errors="replace")
        again = requests.post(f"{url}{path}", headers=_bearer(token), timeout=10)
        assert again.status_code == 200 and again.json() == review  # stored, not redone
        with requests.get(f"{url}{path}/stream", headers=_bearer(token), timeout=10,
                          stream=True) as stream:
            events = [json.loads(line[len("data: "):]) for line in
                      stream.iter_lines(decode_unicode=True) if line.startswith("data: ")]
        assert [e["state"] for e in events] == ["done"]  # and the stream ended with it
    finally:
        stack.close()


def test_a_backlog_of_reviews_never_delays_a_live_game_s_ai_turns(tmp_path: Any) -> None:
    """Sixteen reviews queued behind one reviews worker; meanwhile a person plays a live
    game against three Normal AIs, whose turns go on as before: its moves are all done
    while reviews still wait (figures printed)."""
    stack = Stack(make_backend(BACKENDS[-1], tmp_path), tmp_path,
                  settings={**REVIEWS, "PRESIDENT_REVIEW_BUDGET_MS": "300"})
    try:
        stack.start_ai_worker(processes=2)
        stack.start_celery_worker("--queues", "ai.easy,ai.normal,turns.maintenance")
        stack.start_celery_worker("--queues", "reviews")
        stack.start_api()
        url, key = stack.api_urls[0], _key(stack)
        played = [_left_to_the_ai(url, key, n) for n in range(4)]
        _until(lambda: all(_status(url, g, key) == "over" for g in played), 180, stack)
        alone = _live_moves(url, stack, moves=6, seed=7)
        paths = [f"/v1/games/{g}/rounds/{n}/review" for g in played for n in range(1, 5)]
        for path in paths:
            assert requests.post(f"{url}{path}", headers=key, timeout=10).status_code == 202
        busy = _live_moves(url, stack, moves=6, seed=7)  # (the backlog under way)
        waiting = sum(requests.get(f"{url}{p}", headers=key, timeout=10).json()["state"]
                      in ("queued", "running") for p in paths)
        print(f"\na move answered by three AI turns: p50 {_ms(alone)} ms alone, "
              f"{_ms(busy)} ms with {len(paths)} reviews queued (max {_ms(alone, max)} ms, "
              f"{_ms(busy, max)} ms); {waiting} reviews still waiting after it")
        assert waiting >= 1  # the live game went ahead of the backlog, not behind it
        finished = [_wait_done(url, p, key, stack) for p in paths]
        assert all(r["state"] == "done" for r in finished)
        assert all(set(r["totals"]) == {"0"} for r in finished)  # the series is over
    finally:
        stack.close()


def _ms(seconds: list[float], of: Any = statistics.median) -> str:
    return f"{of(seconds) * 1000:.0f}"


def _left_to_the_ai(url: str, key: dict[str, str], n: int) -> str:
    """A four-round series whose person leaves at once: the AI that takes its seat over
    plays its decisions, which the reviews weigh (the seat stays its player's)."""
    made = requests.post(f"{url}/v1/games", headers=key, timeout=10, json={
        "preset": "classic", "rounds": 4, "takeover": "easy", "seats": [  # (rated: no seed)
            {"kind": "human", "player_id": f"p{n}"}, {"kind": "ai", "engine": "easy"},
            {"kind": "ai", "engine": "easy"}, {"kind": "ai", "engine": "easy"}]})
    assert made.status_code == 201, made.text
    game_id = made.json()["game"]["game_id"]
    left = requests.post(f"{url}/v1/games/{game_id}/leave", timeout=10,
                         headers=_bearer(made.json()["tokens"]["0"]))
    assert left.status_code == 200, left.text
    return str(game_id)


def _status(url: str, game_id: str, key: dict[str, str]) -> str:
    return str(requests.get(f"{url}/v1/games/{game_id}", headers=key, timeout=10)
               .json()["status"])


def _live_moves(url: str, stack: Stack, moves: int, seed: int) -> list[float]:
    """Seconds from each of a person's moves to its next turn (three AI turns between)."""
    made = requests.post(f"{url}/v1/games", timeout=10, json={
        "preset": "classic", "rounds": 3, "seed": seed, "seats": [
            {"kind": "human"}, *[{"kind": "ai", "engine": "normal"}] * 3]}).json()
    game_id, token = made["game"]["game_id"], made["tokens"]["0"]
    view, waits = _my_turn(url, game_id, token, stack), []
    while len(waits) < moves and view["status"] != "over":
        started = time.monotonic()
        _move(url, game_id, token, view)
        view = _my_turn(url, game_id, token, stack)
        waits.append(time.monotonic() - started)
    return waits
