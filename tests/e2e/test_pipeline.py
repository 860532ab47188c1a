"""AI turns through Celery to the gRPC workers, with real processes: a gRPC AI worker,
Celery workers and beat, and the API under gunicorn, on the embedded broker and on
Redis + PostgreSQL. Killing processes mid-game loses no turn and plays none twice."""

from __future__ import annotations

import random
import signal
import time
from typing import Any

import requests

from stack import Stack


def _create(stack: Stack, seats: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    reply = requests.post(f"{stack.api_urls[0]}/v1/games", json={
        "preset": "classic", "seats": seats, **body}, timeout=10)
    assert reply.status_code == 201, reply.text
    return reply.json()  # type: ignore[no-any-return]


def _ai(*levels: str) -> list[dict[str, Any]]:
    return [{"kind": "ai", "engine": level} for level in levels]


def _play_as_human(stack: Stack, game_id: str, token: str, rng: random.Random,
                   timeout_s: float = 180) -> dict[str, Any]:
    """A client's loop: wait for its turn through the events API, play a legal action."""
    url, auth = stack.api_urls[0], {"Authorization": f"Bearer {token}"}
    deadline, seen = time.monotonic() + timeout_s, 0
    while time.monotonic() < deadline:
        game = stack.game(game_id, token)
        if game["status"] == "over":
            return game
        view = game["view"]
        if view["to_act"] == view["seat"]:
            action = rng.choice(view["legal_actions"])
            reply = requests.post(f"{url}/v1/games/{game_id}/actions", headers=auth,
                                  json={"action": action, "version": game["version"]},
                                  timeout=10)
            assert reply.status_code == 200, reply.text
            continue
        events = requests.get(f"{url}/v1/games/{game_id}/events", headers=auth,
                              params={"after": seen, "wait": 5}, timeout=15).json()
        seen = events["last"]
    raise AssertionError(f"the series did not end in {timeout_s} s\n{stack.logs()}")


def test_one_human_and_three_ais_play_a_series_over_http(stack: Stack) -> None:
    stack.start_ai_worker()
    stack.start_celery_worker()
    stack.start_api()
    created = _create(stack, [{"kind": "human"}, *_ai("easy", "normal", "hard")], rounds=3)
    game_id = created["game"]["game_id"]
    final = _play_as_human(stack, game_id, created["tokens"]["0"], random.Random(1))
    assert final["view"]["outcome"] is not None and len(final["view"]["results"]) == 3
    events = stack.events(game_id)
    assert not [e for e in events if e["type"] == "played_for"]  # every AI answered
    stack.assert_sound(game_id)


def test_four_ai_seats_of_mixed_levels_finish_a_series_alone(stack: Stack) -> None:
    stack.start_ai_worker()
    stack.start_celery_worker()
    stack.start_api()
    created = _create(stack, _ai("easy", "normal", "hard", "normal"), rounds=2,
                      preset="cardverse")
    final = stack.wait_over(created["game"]["game_id"])
    assert len(final["view"]["results"]) == 2
    stack.assert_sound(final["game_id"])


def test_the_game_resumes_after_its_grpc_worker_is_killed_and_restarted(stack: Stack) -> None:
    stack.settings["PRESIDENT_AI_RETRIES"] = "50"  # the retries outlast the restart
    grpc_worker = stack.start_ai_worker()
    stack.start_celery_worker()
    stack.start_api()
    created = _create(stack, _ai("easy", "easy", "normal", "normal"), rounds=2, pace_ms=20)
    game_id = created["game"]["game_id"]
    stack.wait_version(game_id, 10)
    grpc_worker.kill()
    stalled = stack.game(game_id)["version"]
    # longer than gRPC's own retries of a call (their waits: workers/rpc/client.py), so
    # that the task's retries are the ones that outlast the restart
    time.sleep(3.0)
    assert stack.game(game_id)["version"] <= stalled + 1  # at most the turn in flight
    stack.start_ai_worker()
    final = stack.wait_over(game_id)
    assert final["version"] > stalled
    assert not [e for e in stack.events(game_id) if e["type"] == "played_for"]
    assert "retrying" in "".join(p.log.read_text() for p in stack.procs if "celery" in p.name)
    stack.assert_sound(game_id)


def test_without_any_grpc_worker_the_easy_fallback_plays_and_says_so(stack: Stack) -> None:
    stack.settings.update(PRESIDENT_AI_RETRIES="1", PRESIDENT_AI_RETRY_BASE_MS="10",
                          PRESIDENT_AI_DEADLINE_MS="200")
    stack.start_celery_worker()  # and no gRPC worker at all
    stack.start_api()
    created = _create(stack, _ai("hard", "easy", "normal", "expert"), rounds=1)
    game_id = created["game"]["game_id"]
    final = stack.wait_over(game_id)
    events = stack.events(game_id)
    notes = [e for e in events if e["type"] == "played_for"]
    plays = [e for e in events if e["type"] in ("played", "passed", "cards_given")]
    assert notes and len(notes) == final["version"]  # every move was the fallback's
    assert {(n["reason"], n["policy"]) for n in notes} == {("ai_failed", "easy")}
    following = [events[events.index(n) + 1] for n in notes]  # the note precedes its play
    assert all(f.get("seat", f.get("giver")) == n["seat"] for f, n in zip(following, notes))
    assert plays
    stack.assert_sound(game_id)


def test_a_celery_worker_killed_mid_task_loses_no_turn_and_plays_none_twice(
        stack: Stack) -> None:
    stack.start_ai_worker()
    worker = stack.start_celery_worker()
    stack.start_beat()  # the sweeper sends again the turn the dead worker held
    stack.start_api()
    created = _create(stack, _ai("hard", "hard", "hard", "hard"), rounds=2)
    game_id = created["game"]["game_id"]
    stack.wait_version(game_id, 8)
    worker.kill(signal.SIGKILL)  # Hard thinks 50 ms a move: most likely mid-task
    stalled = stack.game(game_id)["version"]
    stack.start_celery_worker()
    final = stack.wait_over(game_id)
    assert final["version"] > stalled
    stack.assert_sound(game_id)


def test_a_human_who_does_not_act_in_time_is_played_for(stack: Stack) -> None:
    stack.start_ai_worker()
    worker = stack.start_celery_worker()
    stack.start_api()
    created = _create(stack, [{"kind": "human"}, *_ai("easy", "easy", "easy")], rounds=1,
                      turn_timeout_ms=1000)
    game_id = created["game"]["game_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the human never acts: its turns time out
        notes = [e for e in stack.events(game_id) if e["type"] == "played_for"]
        if len(notes) >= 2:
            break
        time.sleep(0.2)
    assert len(notes) >= 2, stack.logs()
    assert {(n["seat"], n["reason"]) for n in notes} == {(0, "turn_timeout")}
    assert {n["policy"] for n in notes} <= {"pass", "easy"}
    worker.kill(signal.SIGTERM)  # the game stands still while it is checked
    stack.assert_sound(game_id)
