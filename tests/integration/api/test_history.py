"""Series history: listing games page by page, a game's rounds, a round's replay."""

from __future__ import annotations

from flask.testing import FlaskClient

from test_events import AIS, play_until_over
from test_http import bearer, first_play, new_game, seat_view


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
        for e in r["exchanges"]:  # every exchange, its cards for seat 0's only
            assert (e["cards"] is not None) == (0 in (e["giver"], e["receiver"]))
    # a spectator sees the same exchanges as the view lists them: counts, no cards
    assert [[(e["giver"], e["receiver"], e["count"]) for e in r["exchanges"]]
            for r in public] == [[(e["giver"], e["receiver"], e["count"])
                                  for e in r["exchanges"]] for r in mine]
    assert any(r["exchanges"] for r in public)
    assert all(e["cards"] is None for r in public for e in r["exchanges"])
    gifts = [a for r in public for a in r["actions"] if a["action"] is None]
    assert gifts  # the Président's give-backs happened, their cards hidden
    # the receiver of a give-back sees its cards in /rounds, as its events show them
    received = 0
    for r in mine:
        backs = {e["giver"]: e for e in r["exchanges"] if not e["automatic"]}
        for a in r["actions"]:
            back = backs.get(a["seat"])
            gift = a["action"] is None or a["action"].startswith("give")
            if gift and back is not None and back["receiver"] == 0 and a["seat"] != 0:
                assert a["action"] == "give " + " ".join(back["cards"])
                received += 1
    assert received  # (seat 0 was Trou, or Vice-Trou, in a round of this seed)


def test_a_finished_series_shows_the_roles_its_last_round_gave(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=2, seed=4)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    view = client.get(f"/v1/games/{game_id}").get_json()["view"]
    assert view["roles"] == view["results"][-1]["roles"]


def test_the_leader_is_who_leads_the_trick_under_way(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=1, seed=5)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    checked = 0
    while (game := seat_view(client, game_id, token))["status"] != "over":
        view = game["view"]
        if view["trick"]:
            assert view["leader"] == view["trick"][0]["seat"]
        elif view["phase"] == "play":  # a trick just won: its winner (or next) leads
            assert view["leader"] == view["to_act"]
            checked += 1
        client.post(f"/v1/games/{game_id}/actions", headers=bearer(token),
                    json={"action": first_play(game), "version": game["version"]})
    assert checked > 0


def test_a_round_replay_runs_from_its_start_to_its_end(client: FlaskClient) -> None:
    created = new_game(client, seats=AIS, rounds=2, seed=9)
    game_id, token = created["game"]["game_id"], created["tokens"]["0"]
    play_until_over(client, game_id, token)
    replay = client.get(f"/v1/games/{game_id}/rounds/2/replay").get_json()
    kinds = [e["type"] for e in replay["events"]]
    assert kinds[0] == "round_started" and replay["events"][0]["round_no"] == 2
    assert "round_ended" in kinds and "played" in kinds
    assert client.get(f"/v1/games/{game_id}/rounds/7/replay").status_code == 404
