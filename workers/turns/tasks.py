"""The Celery tasks: plain arguments, explicit names, one service call each.

Every task is safe to run twice or late: the service functions check that the game still
waits on that seat at that version, so a redelivered or duplicate task plays nothing."""

from __future__ import annotations

import logging
import random
import threading
from typing import Any, Callable, NoReturn

from celery import Celery, Task
from sqlalchemy.exc import OperationalError

from services.commands import Turn
from services.errors import Unavailable
from services.handlers.matchmaking import match
from services.handlers.presence import expire
from services.handlers.ratings import rate_all
from services.handlers.reviews import review_round, send_stale
from services.handlers.turns import play_instead, postpone, sweep, take_ai_turn
from services.handlers.webhooks import deliver, prune
from workers.rpc.client import AiError, UnknownEngine
from workers.turns import broker, embedded
from workers.turns.runtime import TurnRuntime
from workers.turns.settings import TurnSettings

RuntimeFactory = Callable[[Celery], TurnRuntime]

log = logging.getLogger(__name__)


def backoff(attempt: int, settings: TurnSettings) -> float:
    """Exponential backoff with full jitter: retries of many games never line up."""
    return random.uniform(0, min(settings.retry_cap_s, settings.retry_base_s * 2 ** attempt))


def _once(build: Callable[[], TurnRuntime]) -> Callable[[], TurnRuntime]:
    """``build()`` on the first call only, even when a thread pool's first tasks all
    arrive at once."""
    lock = threading.Lock()
    built: list[TurnRuntime] = []

    def runtime() -> TurnRuntime:
        if not built:
            with lock:
                if not built:
                    built.append(build())
        return built[0]

    return runtime


def _retry(task: Task, turn: Turn, exc: Exception, pause_s: float, rt: TurnRuntime,
           settings: TurnSettings) -> NoReturn:
    """The retry of ``turn`` in ``pause_s``: due then (the sweeper waits for it), and
    expiring as a new message would (not with the first attempt's expiry)."""
    try:
        postpone(turn, rt.uow(), pause_s)
    except Exception as error:  # noqa: BLE001 - the database is down too: retry anyway
        log.warning("AI turn %s: could not postpone it (%s)", turn, error)
    raise task.retry(exc=exc, countdown=pause_s, expires=pause_s + settings.turn_expires_s)


def register(app: Celery, settings: TurnSettings, build: RuntimeFactory) -> None:
    runtime = _once(lambda: build(app))  # once per worker process, on its first task

    @app.task(name="president.ai_turn", bind=True, max_retries=settings.ai_retries,
              shared=False)
    def ai_turn(self: Task, game_id: str, seat: int, version: int) -> str:
        rt, turn = runtime(), Turn(game_id, seat, version)
        try:
            game = take_ai_turn(turn, rt.uow(), rt.decide, rt.fallback)
        except (AiError, OperationalError, Unavailable) as exc:
            attempt = self.request.retries
            if isinstance(exc, UnknownEngine) or (isinstance(exc, AiError)
                                                  and attempt >= self.max_retries):
                log.error("AI turn %s: %s; the Easy level plays instead", turn, exc)
                game = play_instead(turn, "ai_failed", rt.uow(), rt.fallback)
            else:
                log.warning("AI turn %s, attempt %d: %s; retrying", turn, attempt + 1, exc)
                _retry(self, turn, exc, backoff(attempt, settings), rt, settings)
        return "played" if game is not None else "no longer this turn"

    @app.task(name="president.turn_timeout", shared=False)
    def turn_timeout(game_id: str, seat: int, version: int) -> str:
        rt = runtime()
        game = play_instead(Turn(game_id, seat, version), "turn_timeout", rt.uow(),
                            rt.fallback, settings.take_over_after)
        return "played" if game is not None else "no longer this turn"

    @app.task(name="president.sweep", shared=False)
    def sweep_games() -> dict[str, Any]:
        rt = runtime()
        done = sweep(rt.uow(), settings.sweep_after_now(broker.uptime_s(app)))
        if done.ai_turns or done.timeouts:
            log.info("sweep: %d AI turn(s) sent again, %d time limit(s) passed",
                     done.ai_turns, done.timeouts)
        return {"ai_turns": done.ai_turns, "timeouts": done.timeouts}

    @app.task(name="president.deliver_webhook", shared=False)
    def deliver_webhook(message_id: int, hand: int) -> str:
        rt = runtime()
        assert rt.webhooks is not None
        hooks = rt.webhooks
        return deliver(message_id, hand, rt.uow(), hooks.sender, hooks.vault, hooks.policy)

    @app.task(name="president.prune_webhooks", shared=False)
    def prune_webhooks() -> int:
        rt = runtime()
        assert rt.webhooks is not None
        return prune(rt.uow(), rt.webhooks.policy)

    @app.task(name="president.rate_rounds", shared=False)
    def rate_rounds() -> int:
        rt = runtime()
        return rate_all(rt.uow, rt.ratings)

    @app.task(name="president.match", shared=False)
    def match_tickets() -> int:
        rt = runtime()
        assert rt.webhooks is not None
        return match(rt.uow(), rt.webhooks.vault, rt.defaults)

    @app.task(name="president.expire_presence", shared=False)
    def expire_presence() -> int:
        return expire(runtime().uow)

    @app.task(name="president.review_round", shared=False)
    def review(game_id: str, round_no: int) -> str:
        rt = runtime()
        assert rt.adviser is not None and rt.review_policy is not None
        done = review_round(game_id, round_no, rt.uow, rt.adviser, rt.review_policy)
        return "nothing to do" if done is None else done.state

    @app.task(name="president.sweep_reviews", shared=False)
    def sweep_reviews() -> int:
        rt = runtime()
        assert rt.reviews is not None and rt.review_policy is not None
        return send_stale(rt.uow, rt.reviews, rt.review_policy)

    @app.task(name="president.broker_cleanup", shared=False)
    def broker_cleanup() -> int:
        return embedded.cleanup(settings.broker_url)
