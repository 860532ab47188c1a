"""The review routes (docs/ai.md#reviews): a round's review asked for, read (long-polled),
followed as Server-Sent Events. Each parses, calls one service function, renders."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from typing import Any, Iterator

from apiflask import APIBlueprint
from flask import Response, current_app, stream_with_context

from config.settings import defaulted
from services.api import draining
from services.api.auth import Keys, bearer_token
from services.api.limits import per_seat_and_owner
from services.api.schemas import ReviewOut, ReviewQuery, problems
from services.api.streams import slot
from services.container import Container
from services.domain import Caller, Review
from services.errors import HintsForbidden
from services.handlers.reviews import (
    FINISHED, REVIEW_LEVEL, request_review, wait_for_review,
)
from services.ports import ReviewQueue

reviews = APIBlueprint("reviews", __name__, url_prefix="/v1", tag="AI")
ROUTE = "/games/<string:game_id>/rounds/<int:round_no>/review"
BOTH: list[str | dict[str, list[Any]]] = [{"BearerAuth": []}, {"ApiKeyAuth": []}]
HEARTBEAT_S = 15.0


def _services() -> tuple[Container, ReviewQueue, str | None, Caller]:
    services: Container = current_app.extensions["president"]
    keys: Keys = current_app.extensions["president.keys"]
    if services.reviews is None:
        raise HintsForbidden("this service makes no reviews")
    token = bearer_token()
    return services, services.reviews, token, keys.caller(token_call=token is not None)


def review_json(review: Review) -> dict[str, Any]:
    return {"game_id": review.game_id, "round": review.round_no, "state": review.state,
            "level": REVIEW_LEVEL, "requested_at": review.requested_at.isoformat(),
            "finished_at": review.finished_at and review.finished_at.isoformat(),
            "weighed": review.done, "seats": list(review.seats),
            "decisions": [asdict(d) for d in review.decisions],
            "totals": {str(seat): lost for seat, lost in review.totals.items()},
            "error": review.error}


@reviews.post(ROUTE)
@reviews.output(ReviewOut, status_code=202)
@reviews.doc(operation_id="requestReview", tags=["AI"], security=BOTH,
             summary="Review a finished round: Expert weighs each decision of its human "
             "seats from their views at the time (a job; asked again, the same review)",
             responses={200: {"description": "the review, done already"},
                        **problems(400, 401, 403, 404, 409, 429, 503)})
def post_review(game_id: str, round_no: int) -> tuple[dict[str, Any], int] | Response:
    services, queue, token, caller = _services()
    refused = per_seat_and_owner("review", game_id, token, caller,
                                 defaulted("PRESIDENT_REVIEWS_RATE_SEAT"),
                                 defaulted("PRESIDENT_REVIEWS_RATE_KEY"))
    if refused is not None:
        return refused
    review = request_review(game_id, round_no, token, caller, services.reads, services.uow,
                            queue)
    return review_json(review), 200 if review.state in FINISHED else 202


@reviews.get(ROUTE)
@reviews.input(ReviewQuery, location="query")
@reviews.output(ReviewOut)
@reviews.doc(operation_id="getReview", tags=["AI"], security=BOTH,
             summary="A round's review; with wait=S, held until it is done",
             responses=problems(400, 401, 404, 429))
def get_review(game_id: str, round_no: int, query_data: ReviewQuery) -> dict[str, Any]:
    services, _, token, caller = _services()
    give_back = slot(game_id) if query_data.wait else (lambda: None)  # a long poll holds one
    try:
        return review_json(wait_for_review(game_id, round_no, token, caller, services.reads,
                                           services.uow, query_data.wait,
                                           draining.stopping.is_set))
    finally:
        give_back()


@reviews.get(f"{ROUTE}/stream")
@reviews.doc(operation_id="streamReview", tags=["AI"], security=BOTH,
             summary="A round's review as Server-Sent Events: a review event as it "
             "progresses, the last one done (or failed); the stream ends with it",
             responses={200: {"description": "text/event-stream",
                              "content": {"text/event-stream": {}}},
                        **problems(401, 404, 429)})
def stream_review(game_id: str, round_no: int) -> Response:
    services, _, token, caller = _services()
    first = wait_for_review(game_id, round_no, token, caller, services.reads, services.uow,
                            0)  # (a refusal is a problem, before the stream starts)
    ends = time.monotonic() + float(defaulted("PRESIDENT_STREAM_MAX_S"))

    def stream() -> Iterator[str]:
        review = first
        yield f"event: review\ndata: {json.dumps(review_json(review))}\n\n"
        while review.state not in FINISHED and time.monotonic() < ends \
                and not draining.stopping.is_set():
            seen = review
            review = wait_for_review(game_id, round_no, token, caller, services.reads,
                                     services.uow, HEARTBEAT_S, draining.stopping.is_set,
                                     since=seen)
            if (review.state, review.done) == (seen.state, seen.done):
                yield ": keep-alive\n\n"
            else:
                yield f"event: review\ndata: {json.dumps(review_json(review))}\n\n"

    give_back = slot(game_id)  # held until the response is closed, however that comes
    response = Response(stream_with_context(stream()), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    response.call_on_close(give_back)
    return response
