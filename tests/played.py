"""Games played over HTTP to a point, for the tests of what comes after a round (reviews):
two humans playing Easy's choice and one AI; and the HTTP tests' small helpers."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from apps import deal_next
from engine import parse_action
from workers.ai.heuristics import easy_choice

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "ai", "engine": "easy"}]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def first_play(view: dict[str, Any]) -> str:
    """Easy's choice from the JSON view: the first legal action that is not a pass."""
    return str(easy_choice([parse_action(a) for a in view["view"]["legal_actions"]]))


def play_until(client: FlaskClient, game_id: str, tokens: dict[str, str], rounds_over: int,
               headers: dict[str, str] | None = None) -> dict[str, Any]:
    """The human seats play Easy's choice until ``rounds_over`` rounds are over."""
    while True:
        public = client.get(f"/v1/games/{game_id}", headers=headers or {}).get_json()
        if public["status"] == "over" or len(public["view"]["results"]) >= rounds_over:
            return public
        token = tokens[str(public["view"]["to_act"])]
        mine = client.get(f"/v1/games/{game_id}", headers=bearer(token)).get_json()
        moved = client.post(f"/v1/games/{game_id}/actions", headers=bearer(token),
                            json={"action": first_play(mine), "version": mine["version"]})
        assert moved.status_code == 200, moved.get_json()


def new_game(client: FlaskClient, headers: dict[str, str] | None = None, **extra: Any
             ) -> tuple[str, dict[str, str]]:
    deal_next(client.application, extra.pop("seed", 11))  # (others sit: no seed sent)
    created = client.post("/v1/games", headers=headers or {}, json={
        "preset": "classic", "seats": SEATS, "rounds": 2, **extra})
    assert created.status_code == 201, created.get_json()
    return created.get_json()["game"]["game_id"], created.get_json()["tokens"]
