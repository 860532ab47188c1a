"""Series history: listing games page by page, a game's rounds, a round's replay."""

from __future__ import annotations

from flask.testing import FlaskClient

from test_events import AIS, play_until_over
from test_http import bearer, new_game


def test_games_are_listed_newest_first_page_by_page_and_by_status(client: FlaskClient) -> None:
    created = [new_game(client, seed=i)["game"]["game_id"] for i in range(5)]
    finished = new_game(client, seats=AIS, seed=6)
    play_until_over(client, finished["game"]["game_id"], finished["tokens"]["0"])
    seen, cursor = [], None
    while True:
        page = client.get("/v1/games?limit=2" + (f"&cursor={cursor}" if cursor else "")).get_json()
        assert len(page["games"]) <= 2
        seen += [g["game_id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(seen) == sorted(created + [finished["game"]["game_id"]])
    assert len(set(seen)) == len(seen)  # no game twice across pages
    over = client.get("/v1/games?status=over").get_json()["games"]
    assert [g["game_id"] for g in over] == [finished["game"]["game_id"]]
    assert client.get("/v1/games?status=lost").status_code == 400
    bad = client.get("/v1/games?cursor=bm90LWEtY3Vyc29y")
    assert bad.status_code == 400 and bad.get_json()["code"] == "bad_cursor"


def test_rounds_show_results_exchanges_and_the_log_without_others_gifts(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=3, seed=8)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    mine = client.get(f"/v1/games/{game_id}/rounds", headers=bearer(token)).get_json()["rounds"]
    public = client.get(f"/v1/games/{game_id}/rounds").get_json()["rounds"]
    assert [r["round"] for r in mine] == [1, 2, 3]
    for r in mine:
        assert sorted(r["points"]) == [1, 2, 3, 4] and len(r["actions"]) > 20
        assert all(0 in (e["giver"], e["receiver"]) for e in r["exchanges"])
    assert all(r["exchanges"] == [] for r in public)  # a spectator took part in none
    gifts = [a for r in public for a in r["actions"] if a["action"] is None]
    assert gifts  # the Président's give-backs happened, their cards hidden


def test_a_round_replay_runs_from_its_start_to_its_end(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=2, seed=9)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    replay = client.get(f"/v1/games/{game_id}/rounds/2/replay").get_json()
    kinds = [e["type"] for e in replay["events"]]
    assert kinds[0] == "round_started" and replay["events"][0]["round_no"] == 2
    assert "round_ended" in kinds and "played" in kinds
    assert client.get(f"/v1/games/{game_id}/rounds/7/replay").status_code == 404
