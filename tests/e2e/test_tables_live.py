"""Tables on the real system (docs/lobby.md): two API processes, a Celery worker, the
beat and a gRPC AI worker, on the embedded default and on PostgreSQL + Redis. Joins
racing on both API processes, a seat that leaves mid-round finished by the AI through
the pipeline, a seat taken over after its time ran out three times, a rematch asked
for by every seat at once, presence seen from the other API process."""

from __future__ import annotations

import random
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import requests

from stack import Stack

EASY = {"kind": "ai", "engine": "easy"}


def _up(stack: Stack, beat: bool = False) -> None:
    stack.start_ai_worker()
    stack.start_celery_worker()
    if beat:
        stack.start_beat()
    stack.start_api()
    stack.start_api()


def _post(url: str, path: str, token: str | None = None, **body: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return requests.post(f"{url}{path}", json=body, headers=headers, timeout=30)


def _play_out(stack: Stack, game_id: str, tokens: list[str], seed: int = 1) -> None:
    """Each human seat plays a random legal action on its turn, on either API process,
    until the series is over (the AI seats play through Celery meanwhile)."""
    rng = random.Random(seed)
    for _ in range(5000):
        for token in tokens:
            url = rng.choice(stack.api_urls)
            game = stack.game(game_id, token, url)
            if game["status"] == "over":
                return
            view = game["view"]
            if view["to_act"] == view["seat"]:
                _post(url, f"/v1/games/{game_id}/actions", token,
                      action=rng.choice(view["legal_actions"]), version=game["version"])
        time.sleep(0.01)
    raise AssertionError(f"game {game_id} did not end\n{stack.logs()}")


def _soon(check: Callable[[], bool], within_s: float = 60.0) -> bool:
    ends = time.monotonic() + within_s
    while not check():
        if time.monotonic() > ends:
            return False
        time.sleep(0.1)
    return True


def test_joins_racing_on_two_api_processes_then_a_rematch_asked_by_every_seat_at_once(
        stack: Stack) -> None:
    _up(stack)
    one = stack.api_urls[0]
    created = _post(one, "/v1/games", preset="classic", rounds=1,
                    seats=[{"kind": "open"}] * 3 + [EASY]).json()
    game_id, code = created["game"]["game_id"], created["invite"]

    def join(n: int) -> Any:
        return _post(stack.api_urls[n % 2], "/v1/join", code=code, name=f"p{n}")

    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(join, range(12)))
    won = [a.json() for a in answers if a.status_code == 201]
    assert sorted(w["seat"] for w in won) == [0, 1, 2], [a.text for a in answers]
    assert {a.status_code for a in answers} == {201, 409}
    names = [s["name"] for s in stack.game(game_id)["seats"][:3]]
    assert sorted(names) == sorted(w["game"]["seats"][w["seat"]]["name"] for w in won)
    tokens = [w["token"] for w in sorted(won, key=lambda w: w["seat"])]
    _play_out(stack, game_id, tokens)
    stack.assert_sound(game_id)

    def rematch(n: int) -> Any:
        return _post(stack.api_urls[n % 2], f"/v1/games/{game_id}/rematch", tokens[n])

    with ThreadPoolExecutor(3) as pool:
        again = list(pool.map(rematch, range(3)))
    assert [a.status_code for a in again] == [201] * 3, [a.text for a in again]
    assert len({a.json()["game"]["game_id"] for a in again}) == 1
    new_id = again[0].json()["game"]["game_id"]
    new_tokens = [a.json()["token"] for a in again]
    assert _soon(lambda: stack.game(new_id)["status"] == "active")
    assert [s["kind"] for s in stack.game(new_id)["seats"]] == ["human"] * 3 + ["ai"]
    _play_out(stack, new_id, new_tokens, seed=2)
    stack.assert_sound(new_id)
    created_events = [e for e in stack.events(game_id) if e["type"] == "rematch_created"]
    assert [e["rematch"] for e in created_events] == [new_id]


def test_a_seat_that_leaves_mid_round_is_finished_by_the_ai_through_the_pipeline(
        stack: Stack) -> None:
    _up(stack)
    one, two = stack.api_urls
    created = _post(one, "/v1/games", preset="classic", rounds=2, takeover="easy",
                    seats=[{"kind": "human"}, {"kind": "human"}, EASY, EASY]).json()
    game_id, stays, goes = (created["game"]["game_id"], created["tokens"]["0"],
                            created["tokens"]["1"])
    assert stack.game(game_id, goes, two)["seats"][1]["connected"]
    assert _soon(lambda: stack.game(game_id, url=one)["seats"][1]["connected"], 10)
    left = _post(two, f"/v1/games/{game_id}/leave", goes)
    assert left.status_code == 200, left.text
    assert _post(one, f"/v1/games/{game_id}/leave", goes).status_code == 401
    _play_out(stack, game_id, [stays])
    stack.assert_sound(game_id)
    events = stack.events(game_id)
    assert [(e["type"], e.get("reason")) for e in events
            if e["type"] in ("seat_left", "seat_taken_over")] == [
        ("seat_left", None), ("seat_taken_over", "left")]
    after = [e for e in events[events.index(next(e for e in events
                                                  if e["type"] == "seat_taken_over")):]
             if e["type"] in ("played", "passed") and e["seat"] == 1]
    assert after, "the AI never played the seat it took over"


def test_a_seat_whose_time_runs_out_three_times_in_a_row_is_taken_over(
        stack: Stack) -> None:
    _up(stack, beat=True)
    created = _post(stack.api_urls[0], "/v1/games", preset="classic", rounds=1,
                    turn_timeout_ms=1000, takeover="easy",
                    seats=[{"kind": "human"}, EASY, EASY]).json()
    game_id = created["game"]["game_id"]
    over = stack.wait_over(game_id, timeout_s=120)  # nobody plays seat 0: the AI ends it
    assert over["seats"][0]["kind"] == "ai"
    events = stack.events(game_id)
    taken = [e for e in events if e["type"] == "seat_taken_over"]
    assert [(e["seat"], e["reason"]) for e in taken] == [(0, "timeouts")]
    before = events[:events.index(taken[0])]
    assert [e["reason"] for e in before if e["type"] == "played_for"] == ["turn_timeout"] * 2
    stack.assert_sound(game_id)
