"""The rating routes: a pool's leaderboard and a player's figures (docs/ratings.md).
Each parses, calls one service function, renders."""

from __future__ import annotations

from typing import Any

from apiflask import APIBlueprint
from flask import current_app

from services.api.auth import Keys
from services.api.schemas import LeaderboardOut, LeaderboardQuery, PlayerOut, problems
from services.container import Container
from services.domain import Caller, Rating, Standing
from services.handlers.leaderboards import Profile, leaderboard, profile

ratings = APIBlueprint("ratings", __name__, url_prefix="/v1", tag="Ratings")
KEY: list[str | dict[str, list[Any]]] = [{"ApiKeyAuth": []}]
TAGS = ["Ratings"]
POOL = "<string(maxlength=80):pool>"


def _services() -> tuple[Container, Caller]:
    container: Container = current_app.extensions["president"]
    keys: Keys = current_app.extensions["president.keys"]
    return container, keys.caller(token_call=False)


def rating_json(rating: Rating) -> dict[str, Any]:
    return {"mu": rating.mu, "sigma": rating.sigma, "ordinal": rating.ordinal,
            "rounds": rating.rounds}


def standing_json(standing: Standing) -> dict[str, Any]:
    return {"rank": standing.rank, "player_id": standing.ref.player,
            **rating_json(standing.rating)}


def profile_json(found: Profile) -> dict[str, Any]:
    return {"player_id": found.player_id, "pools": [
        {"pool": p.pool, **rating_json(p.rating), "series": p.series,
         "president_rate": p.president_rate, "trou_rate": p.trou_rate,
         "mean_points": p.mean_points,
         "history": [{"game_id": r.game_id, "round": r.round_no, "place": r.place,
                      "role": r.role, "points": r.points, "mu": r.rating.mu,
                      "sigma": r.rating.sigma, "ordinal": r.rating.ordinal}
                     for pool, r in found.history if pool == p.pool]}
        for p in found.pools]}


@ratings.get(f"/leaderboards/{POOL}")
@ratings.input(LeaderboardQuery, location="query")
@ratings.output(LeaderboardOut)
@ratings.doc(operation_id="getLeaderboard", tags=TAGS, security=KEY,
             summary="A pool's players (the key's own and the AI levels), best conservative "
             "rating first, a page at a time; or one player among its neighbours",
             responses=problems(400, 401, 403, 404))  # 404: a name longer than POOL takes
def get_leaderboard(pool: str, query_data: LeaderboardQuery) -> dict[str, Any]:
    services, caller = _services()
    standings, cursor = leaderboard(pool, query_data.limit, query_data.cursor,
                                    query_data.around, services.uow(), caller,
                                    services.ratings)
    return {"pool": pool, "standings": [standing_json(s) for s in standings],
            "next_cursor": cursor}


@ratings.get("/players/<string(maxlength=64):player_id>")
@ratings.output(PlayerOut)
@ratings.doc(operation_id="getPlayer", tags=TAGS, security=KEY,
             summary="A player's rating, history and figures in each pool it was rated in "
             "(the key's own players, and ai:<level>)",
             responses=problems(400, 401, 403, 404))
def get_player(player_id: str) -> dict[str, Any]:
    services, caller = _services()
    return profile_json(profile(player_id, services.uow(), caller))
