"""Following a game with plain HTTP: numbered events, long-poll, SSE, redaction."""

from __future__ import annotations

import threading
import time
from typing import Any

from flask.testing import FlaskClient

from test_http import bearer, first_play, new_game, seat_view

AIS = [{"kind": "human"}, {"kind": "ai", "engine": "easy"}, {"kind": "ai", "engine": "easy"},
       {"kind": "ai", "engine": "easy"}]


def events(client: FlaskClient, game_id: str, after: int = 0, token: str | None = None,
           wait: float = 0) -> dict[str, Any]:
    response = client.get(f"/v1/games/{game_id}/events?after={after}&wait={wait}",
                          headers=bearer(token) if token else {})
    assert response.status_code == 200, response.get_json()
    return response.get_json()  # type: ignore[no-any-return]


def play_until_over(client: FlaskClient, game_id: str, token: str) -> None:
    while (mine := seat_view(client, game_id, token))["status"] != "over":
        response = client.post(f"/v1/games/{game_id}/actions", headers=bearer(token),
                               json={"action": first_play(mine), "version": mine["version"]})
        assert response.status_code == 200


def test_events_replay_the_whole_series_in_order_and_resume(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=2, seed=6)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    everything = events(client, game_id, token=token)
    seqs = [e["seq"] for e in everything["events"]]
    assert seqs == list(range(1, everything["last"] + 1))
    assert everything["events"][-1]["type"] == "series_ended"
    plays = [e for e in everything["events"] if e["type"] in ("played", "passed")]
    assert len(plays) >= 40
    # a reconnecting client asks from its last number and gets exactly the rest
    middle = seqs[len(seqs) // 2]
    rest = events(client, game_id, after=middle, token=token)["events"]
    assert [e["seq"] for e in rest] == seqs[middle:]


def test_exchange_cards_are_shown_only_to_giver_and_receiver(client: FlaskClient) -> None:
    created = new_game(client, rounds=2, seed=2)  # four humans
    game_id, tokens = created["game"]["game_id"], created["tokens"]
    while True:
        public = client.get(f"/v1/games/{game_id}").get_json()
        if public["view"]["round"] == 2:
            break
        mine = seat_view(client, game_id, tokens[str(public["view"]["to_act"])])
        client.post(f"/v1/games/{game_id}/actions", headers=bearer(tokens[str(mine['view']['seat'])]),
                    json={"action": first_play(mine), "version": mine["version"]})
    gifts = [e for e in events(client, game_id)["events"] if e["type"] == "cards_given"]
    assert gifts and all(g["cards"] is None for g in gifts)  # the spectator sees counts only
    for seat, token in tokens.items():
        for gift in (e for e in events(client, game_id, token=token)["events"]
                     if e["type"] == "cards_given"):
            involved = int(seat) in (gift["giver"], gift["receiver"])
            assert (gift["cards"] is not None) == involved


def test_long_poll_returns_when_an_event_comes(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, seed=12)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    mine = seat_view(client, game_id, token)  # (its seat is connected from then on)
    last = events(client, game_id)["last"]
    app = client.application

    def act_soon() -> None:
        time.sleep(0.3)
        with app.test_client() as other:
            other.post(f"/v1/games/{game_id}/actions", headers=bearer(token),
                       json={"action": first_play(mine), "version": mine["version"]})

    threading.Thread(target=act_soon).start()
    waited = events(client, game_id, after=last, wait=10)
    assert waited["events"] and waited["events"][0]["seq"] == last + 1
    assert waited["events"][0]["type"] == "played" and waited["events"][0]["seat"] == 0


def test_sse_streams_the_same_events_and_resumes_after_last_event_id(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, seed=6)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    polled = events(client, game_id, after=3)["events"]
    response = client.get(f"/v1/games/{game_id}/events/stream", headers={"Last-Event-ID": "3"})
    assert response.mimetype == "text/event-stream"
    frames = [f for f in response.get_data(as_text=True).split("\n\n") if f.startswith("id:")]
    ids = [int(f.split("\n")[0][4:]) for f in frames]
    assert ids == [e["seq"] for e in polled]
    assert frames[-1].split("\n")[1] == "event: series_ended"


def test_events_of_an_unknown_game_or_with_a_bad_token_are_problems(client: FlaskClient) -> None:
    created = new_game(client, seed=1)
    game_id = created["game"]["game_id"]
    assert client.get("/v1/games/" + "a" * 32 + "/events").status_code == 404
    assert client.get(f"/v1/games/{game_id}/events", headers=bearer("nope")).status_code == 401
    bad = client.get(f"/v1/games/{game_id}/events?after=-3")
    assert bad.status_code == 400 and bad.get_json()["code"] == "invalid_query"
    assert client.get(f"/v1/games/{game_id}/events/stream",
                      headers=bearer("nope")).status_code == 401
