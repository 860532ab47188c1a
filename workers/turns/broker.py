"""A worker's side of a broker that restarts.

- ``QuickReconnect``, the worker's consumer (``worker_consumer``): kombu waits 2 s after
  a failed try to reconnect, then 4, 6 … up to 30, so a worker whose first try came while
  a restarted Redis was still starting sat idle for 2 s with every game waiting on it
  (``president bench chaos``'s ``redis_restart``). Here the tries come 0.1 s apart at
  first, then at most ``RECONNECT_MAX_S`` apart.
- ``uptime_s``: how long Redis has been up, which tells the sweeper that the messages
  of the turns due before it started were lost with the Redis before
  (``TurnSettings.sweep_after_now``)."""

from __future__ import annotations

import functools
from typing import Any

import redis
from celery import Celery
from celery.worker.consumer import Consumer

RECONNECT_FIRST_S = 0.1
RECONNECT_STEP_S = 0.5
RECONNECT_MAX_S = 5.0


def quick(conn: Any) -> Any:
    """``conn`` (a kombu connection) retrying at this module's intervals."""
    conn.ensure_connection = functools.partial(
        type(conn).ensure_connection, conn, interval_start=RECONNECT_FIRST_S,
        interval_step=RECONNECT_STEP_S, interval_max=RECONNECT_MAX_S)
    return conn


class QuickReconnect(Consumer):  # type: ignore[misc]  # (celery is untyped)
    def ensure_connected(self, conn: Any) -> Any:
        return super().ensure_connected(quick(conn))


def is_redis(broker_url: str) -> bool:
    return broker_url.startswith(("redis://", "rediss://"))


def uptime_s(app: Celery) -> float | None:
    """Whole seconds the Redis broker has been up; None with another broker, or when it
    does not answer within half a second."""
    url = str(app.conf.broker_url)
    if not is_redis(url):
        return None
    try:
        return float(_client(url).info("server")["uptime_in_seconds"])
    except redis.RedisError:
        return None


@functools.cache
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
