"""The service's ``TurnScheduler`` on Celery: each turn becomes a task on its level's
queue. Tasks are sent by name, so the sender never imports the task code."""

from __future__ import annotations

import logging

from celery import Celery

from workers.turns.app import MAINTENANCE_QUEUE, queue_for

log = logging.getLogger(__name__)

# A broker that does not answer must not hold a player's request for long: the move is
# already committed, and the sweeper sends any turn whose message was lost.
COUNTDOWN_LIMIT_S = 300.0

PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0.1, "interval_step": 0.2,
                 "interval_max": 0.5}


class CeleryScheduler:
    def __init__(self, app: Celery) -> None:
        self.app = app

    def ai_turn(self, game_id: str, seat: int, version: int, engine: str,
                delay_s: float = 0.0, expires_s: float | None = None) -> None:
        self._send("president.ai_turn", (game_id, seat, version), queue_for(engine), delay_s,
                   expires_s)

    def human_turn(self, game_id: str, seat: int, version: int, timeout_s: float) -> None:
        """A short time limit is a countdown task; a long one is left to the sweeper,
        which finds it by its deadline: a worker holds a countdown task in memory all
        along (and Redis hands it out again after its visibility timeout)."""
        if timeout_s <= COUNTDOWN_LIMIT_S:
            self._send("president.turn_timeout", (game_id, seat, version), MAINTENANCE_QUEUE,
                       timeout_s)

    def _send(self, task: str, args: tuple[str, int, int], queue: str, delay_s: float,
              expires_s: float | None = None) -> None:
        try:
            self.app.send_task(task, args=args, queue=queue, countdown=delay_s or None,
                               expires=expires_s, retry=True, retry_policy=PUBLISH_RETRY)
        except Exception:  # noqa: BLE001 - any broker failure: the sweeper will resend
            log.exception("could not send %s%s to %s; the sweeper will send it again",
                          task, args, queue)
