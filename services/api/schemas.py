"""Request and response bodies as pydantic models: validation and the OpenAPI spec."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engine.rules import MOST_ROUNDS, MOST_SEATS
from services.domain import LARGEST_NUMBER, WebhookType
from services.handlers.export import in_utc


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")  # unknown fields are an error, not ignored


class Body(BaseModel):
    """A JSON body: unknown fields are an error, and no value is coerced into another type
    (``"1"`` and ``false`` are not integers). Query strings are text, read as the types
    their fields say (``Strict``)."""

    model_config = ConfigDict(extra="forbid", strict=True)


PLAYER_ID = Field(None, min_length=1, max_length=64, description="the client "
                  "application's own id for its player (needs a client key: players are "
                  "the key's own)")
DISPLAY_NAME = Field(None, min_length=1, max_length=64, description="shown to everybody "
                     "at the table")


class SeatIn(Body):
    kind: Literal["human", "ai", "open"] = Field(description="open: a seat anybody with the "
                                                 "game's invite code may take (the game "
                                                 "waits until every one is taken)")
    engine: str | None = Field(None, description="for an AI seat: easy, normal, hard, expert "
                               "or a configured engine name")
    player_id: str | None = PLAYER_ID
    name: str | None = DISPLAY_NAME


class CreateGameIn(Body):
    preset: str = Field(description="classic, cardverse, club, full or classic-variants")
    seats: list[SeatIn] = Field(min_length=3, max_length=MOST_SEATS)
    options: dict[str, Any] = Field(default_factory=dict,
                                    description="rules options over the preset (GET /v1/rules)")
    rounds: int | None = Field(None, ge=1, le=MOST_ROUNDS)
    seed: int | None = Field(None, ge=0, lt=2**63,
                             description="fixes every deal, for a game of the creator's one "
                             "human seat (or none) and AI seats only (else 400 "
                             "seed_not_allowed); secret: never shown by the API")
    pace_ms: int | None = Field(None, ge=0, le=10_000, description="pause before each AI "
                                "move, so that people can follow (needs the Celery "
                                "scheduler); 0: none; omitted: the service's default")
    turn_timeout_ms: int | None = Field(None, ge=0, le=86_400_000, description="time a human "
                                        "seat has to act (at least 1000), after which the "
                                        "service plays for it (pass if legal, else the Easy "
                                        "level; needs the Celery scheduler); 0: no limit; "
                                        "omitted: the service's default")

    visibility: Literal["public", "private"] | None = Field(
        None, description="private: watched only with the owner's key or a seat token; "
        "omitted: private for a game made with a key, public otherwise")
    takeover: str | None = Field(None, description="the AI level that plays a seat its "
                                 "human leaves (or lets time out too often); default normal")
    hints: bool = Field(True, description="false: no seat may ask for a hint (rated play)")

    @field_validator("turn_timeout_ms")
    @classmethod
    def _a_second_at_least(cls, value: int | None) -> int | None:
        if value is not None and 0 < value < 1_000:
            raise ValueError("a time limit is 0 (none) or at least 1000 ms")
        return value


class ActIn(Body):
    action: str = Field(max_length=200, description="canonical text: '7H 7S', '5H-JR-7H', "
                        "'pass', 'give 3C 5D'")
    version: int = Field(ge=0, le=LARGEST_NUMBER,
                         description="the game version this action was made against")


class TrickPlayOut(BaseModel):
    seat: int
    play: str


class PendingOut(BaseModel):
    giver: int
    receiver: int
    count: int


class ExchangeOut(BaseModel):
    giver: int
    receiver: int
    count: int
    automatic: bool
    cards: list[str] | None = Field(description="only for the seat that gave or received them")


class ResultOut(BaseModel):
    round: int
    went_out: list[int]
    ranking: list[int]
    roles: list[str]
    points: list[int]
    penalized: list[int]


class OutcomeOut(BaseModel):
    termination: str
    scores: list[int]
    standing: list[int]
    winners: list[int]


class ViewOut(BaseModel):
    seat: int | None = Field(description="null: the spectator's view")
    round: int
    rounds: int
    phase: Literal["exchange", "play", "over"]
    to_act: int = Field(description="the seat whose decision it is; -1 when nobody acts "
                        "(the series is over)")
    hand: list[str] = Field(description="the viewer's own cards; empty for a spectator")
    hand_sizes: list[int]
    trick: list[TrickPlayOut]
    discard: list[str]
    reversed: bool
    locked_suits: list[str] = Field(description="the suits (C, D, H, S) the trick is "
                                    "locked to under the suit lock; empty when none")
    passed: list[int]
    went_out: list[int]
    penalized: list[int]
    roles: list[str] | None = Field(description="the roles this round is played under "
                                    "(from the round before); once the series is over, "
                                    "those its last round gave")
    scores: list[int]
    leader: int = Field(description="the seat that leads the trick under way (during the "
                        "exchange: the round's first trick)")
    pending: list[PendingOut]
    exchanges: list[ExchangeOut]
    results: list[ResultOut]
    legal_actions: list[str]
    outcome: OutcomeOut | None


class SeatOut(BaseModel):
    seat: int
    kind: Literal["human", "ai", "open"]
    engine: str | None
    name: str | None = Field(description="its player's display name")
    connected: bool = Field(description="a human seat heard from in the last 30 s (a "
                            "request with its token, an open stream or long poll)")


Status = Literal["waiting", "active", "over", "cancelled"]


class GameOut(BaseModel):
    game_id: str
    version: int
    status: Status = Field(description="waiting: for its open seats (nobody plays yet); "
                           "cancelled: by its host before it started")
    preset: str
    rules: dict[str, Any]
    seats: list[SeatOut]
    visibility: Literal["public", "private"]
    hints: bool = Field(description="whether its seats may ask for hints")
    seeded: bool = Field(description="its creator chose its deal (a seed): only its "
                         "creator's seat and AI seats sit in it, and it is never rated")
    pace_ms: int
    turn_timeout_ms: int | None
    view: ViewOut


class CreatedOut(BaseModel):
    game: GameOut
    tokens: dict[str, str] = Field(description="human seat number -> its secret bearer "
                                   "token, shown only here")
    invite: str | None = Field(description="a game with open seats: the code that joins "
                               "it (POST /v1/join), to share; null otherwise")


class JoinIn(Body):
    code: str = Field(min_length=1, max_length=40, description="the game's invite code "
                      "(any case; dashes and spaces optional)")
    player_id: str | None = PLAYER_ID
    name: str | None = DISPLAY_NAME


class SeatedOut(BaseModel):
    game: GameOut
    seat: int
    token: str = Field(description="the seat's secret bearer token, shown only here")


class StartIn(Body):
    fill: str | None = Field(None, description="the AI level for the open seats; default "
                             "the game's takeover level")


class InviteOut(BaseModel):
    invite: str = Field(description="the game's new invite code; the one before opens "
                        "nothing any more")


class RulesOut(BaseModel):
    presets: dict[str, dict[str, Any]]
    options: list[dict[str, Any]]
    defaults: dict[str, Any]


class StatusOut(BaseModel):
    status: str


class EventsQuery(Strict):
    after: int = Field(0, ge=0, le=LARGEST_NUMBER,
                       description="the last event number the client has seen")
    wait: float = Field(0, ge=0, le=30, description="long-poll: seconds to wait for an event")


class EventsOut(BaseModel):
    events: list[dict[str, Any]] = Field(description="{seq, version, type, …fields}: "
                                         "public events and the caller's private ones; "
                                         "type played_for {seat, reason, policy} comes just "
                                         "before a play the service made for a seat")
    last: int = Field(description="the number of the game's last event")


class GamesQuery(Strict):
    status: Status | None = None
    limit: int = Field(20, ge=1, le=100)
    cursor: str | None = Field(None, max_length=200, description="next_cursor of the page before")


class ExportQuery(Strict):
    since: datetime | None = Field(None, description="RFC 3339: series finished from then "
                                   "on (no offset: UTC); omitted: all")

    @field_validator("since")
    @classmethod
    def _a_moment_in_utc(cls, value: datetime | None) -> datetime | None:
        """A moment UTC cannot write (0001-01-01 at +14:00) is refused."""
        try:
            return None if value is None else in_utc(value)
        except OverflowError:
            raise ValueError("a moment between the years 1 and 9999 in UTC") from None


class GamesOut(BaseModel):
    games: list[dict[str, Any]]
    next_cursor: str | None = Field(description="null on the last page")


class RoundsOut(BaseModel):
    rounds: list[dict[str, Any]] = Field(description="finished rounds: went_out, ranking, roles, "
                                         "points, penalized, exchanges, actions")


class ReplayOut(BaseModel):
    round: int
    events: list[dict[str, Any]]


class HintIn(Body):
    level: Literal["easy", "normal", "hard", "expert"] = Field(
        "hard", description="the AI level asked; hard and expert also say what they weighed")
    budget_ms: float | None = Field(None, ge=1, le=2000, description="how long a searching "
                                    "level may think; omitted: its default (hard 50 ms, "
                                    "expert 500 ms)")
    seed: int | None = Field(None, ge=0, lt=2**63, description="fixes a searching level's "
                             "randomness; omitted: the game's version")


class HintCandidateOut(BaseModel):
    action: str
    expected_points: float = Field(description="the round's points this play leads to for "
                                   "the seat, on average over the deals the level tried")
    simulations: int


class HintOut(BaseModel):
    level: str
    action: str = Field(description="what the level would play now: one of the seat's "
                        "legal actions (nothing is played)")
    candidates: list[HintCandidateOut] = Field(description="hard and expert: each play they "
                                               "weighed; empty for easy and normal")


class ReviewQuery(Strict):
    wait: float = Field(0, ge=0, le=30, description="long-poll: seconds to wait for the "
                        "review to be done")


class DecisionOut(BaseModel):
    index: int = Field(description="its place in the round's actions, from 1")
    seat: int
    action: str | None = Field(description="the action taken; null: a gift the reader "
                               "neither gave nor got")
    receiver: int | None = Field(description="a gift's receiver; null for a play or a pass")
    best: str | None = Field(description="Expert's choice from the seat's view at the time; "
                             "null: not shown to this reader, or a seat not reviewed")
    taken_points: float | None = Field(description="the round's points Expert expected of "
                                       "the action taken")
    best_points: float | None = Field(description="the round's points Expert expected of "
                                      "its choice")
    lost: float | None = Field(description="best_points - taken_points, at least 0; 0 when "
                               "Expert agrees or there was no choice; null: not weighed (a "
                               "gift, chosen by rule)")
    simulations: int = Field(description="the deals Expert played out for the decision")


class ReviewOut(BaseModel):
    game_id: str
    round: int
    state: Literal["queued", "running", "done", "failed"]
    level: str = Field(description="the AI level that weighs the decisions (expert)")
    requested_at: str
    finished_at: str | None
    weighed: int = Field(description="decisions of the reviewed seats weighed so far")
    seats: list[int] = Field(description="the seats reviewed: the human ones")
    decisions: list[DecisionOut] = Field(description="every decision of the round, in order "
                                         "(once done)")
    totals: dict[str, float] = Field(description="points lost per reviewed seat the reader "
                                     "may see (its own; every seat's for the owner's key "
                                     "once the series is over)")
    error: str | None


class LeaderboardQuery(Strict):
    limit: int = Field(20, ge=1, le=100, description="standings a page; with around, "
                       "neighbours on each side")
    cursor: str | None = Field(None, max_length=300, description="next_cursor of the page "
                               "before")
    around: str | None = Field(None, min_length=1, max_length=64, description="a player id "
                               "(the key's own, or ai:<level>): that player among its "
                               "neighbours")


class RatingOut(BaseModel):
    mu: float
    sigma: float
    ordinal: float = Field(description="mu - 3 sigma: the conservative rating boards "
                           "order by")
    rounds: int = Field(description="rated rounds")


class StandingOut(RatingOut):
    rank: int = Field(description="1: the best on this board")
    player_id: str = Field(description="the key's own id, or ai:<level> for an AI level")


class LeaderboardOut(BaseModel):
    pool: str
    standings: list[StandingOut]
    next_cursor: str | None = Field(description="null on the last page (and with around)")


class RatedRoundOut(BaseModel):
    game_id: str
    round: int
    place: int = Field(description="1: the Président")
    role: str
    points: int
    mu: float
    sigma: float
    ordinal: float


class PoolOut(RatingOut):
    pool: str
    series: int = Field(description="series with a rated round")
    president_rate: float = Field(description="share of its rated rounds as Président")
    trou_rate: float = Field(description="share of its rated rounds as Trou du cul")
    mean_points: float = Field(description="mean points a rated round")
    history: list[RatedRoundOut] = Field(description="its last rated rounds in this pool, "
                                         "newest first, with its rating after each")


class PlayerOut(BaseModel):
    player_id: str
    pools: list[PoolOut]


class TicketIn(Body):
    player_id: str = Field(min_length=1, max_length=64, description="the key's player")
    preset: str = Field("classic", description="the rules of the table")
    players: int = Field(4, ge=3, le=MOST_SEATS, description="the table's size")
    wait_s: float = Field(30, ge=1, le=600, description="how long to wait for people; "
                          "then the seats nobody took are filled with the AI level fill")
    fill: str = Field("normal", description="the AI level for the seats left")
    seed: int | None = Field(None, description="refused (400 seed_not_allowed): the "
                             "service draws a matchmade table's deal")


class TicketQuery(Strict):
    wait: float = Field(0, ge=0, le=30, description="long-poll: seconds to wait for the "
                        "ticket to be matched")


class TicketOut(BaseModel):
    id: str
    player_id: str
    preset: str
    players: int
    pool: str = Field(description="the rating pool its player is matched in")
    state: Literal["waiting", "matched", "cancelled"]
    created_at: str
    expires_at: str = Field(description="when the seats nobody took go to the AI")
    game_id: str | None
    seat: int | None
    token: str | None = Field(description="the seat's secret bearer token: in the first "
                              "answer after the match only")


class WebhookIn(Body):
    url: str = Field(max_length=2048, description="http(s) URL the service POSTs to; "
                     "must resolve to a public address")
    event_types: list[WebhookType] = Field(min_length=1, max_length=10)
    description: str | None = Field(None, max_length=200)


class WebhookPatchIn(Body):
    """A field absent or null is left as it is."""

    url: str | None = Field(None, max_length=2048)
    event_types: list[WebhookType] | None = Field(None, min_length=1, max_length=10)
    description: str | None = Field(None, max_length=200, description="\"\" clears it")
    enabled: bool | None = Field(None, description="true enables a disabled endpoint again")


class WebhookOut(BaseModel):
    id: str
    url: str
    event_types: list[str]
    description: str | None
    enabled: bool
    disabled_reason: str | None = Field(description="why the service disabled it")
    failing_since: str | None = Field(description="its first failed attempt since the last "
                                      "success (RFC 3339)")
    created_at: str | None


class WebhookSecretOut(BaseModel):
    webhook: WebhookOut
    secret: str = Field(description="whsec_…: the signing secret, shown once")


class WebhooksOut(BaseModel):
    webhooks: list[WebhookOut]


class DeliveriesQuery(Strict):
    limit: int = Field(50, ge=1, le=200)
    cursor: str | None = Field(None, max_length=200, description="next_cursor of the page "
                               "before")


class DeliveryOut(BaseModel):
    attempt_id: int
    webhook_id: str = Field(description="the message's webhook-id, the same every attempt")
    type: str
    attempted_at: str
    status_code: int | None = Field(description="the endpoint's answer; null: none")
    latency_ms: int
    error: str | None
    message_state: Literal["pending", "delivered", "failed"]


class DeliveriesOut(BaseModel):
    deliveries: list[DeliveryOut] = Field(description="attempts, newest first")
    next_cursor: str | None = Field(description="null on the last page")


class Problem(BaseModel):
    """RFC 9457 problem details, with this API's stable ``code``."""

    type: str = Field(description="urn:president:problem:<code>")
    title: str
    status: int
    detail: str
    code: str
    errors: dict[str, Any] | None = Field(None, description="per-field validation messages")


def problems(*statuses: int) -> dict[int, Any]:
    """The ``responses`` of a route's doc: these statuses answer with a problem."""
    return {status: {"description": "a problem (RFC 9457)",
                     "content": {"application/problem+json": {
                         "schema": {"$ref": "#/components/schemas/Problem"}}}}
            for status in statuses}
