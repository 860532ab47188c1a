"""The turn pipeline's settings, from the environment (the README lists them all)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

EMBEDDED_BROKER = "sqla+sqlite:///var/broker.db"


@dataclass(frozen=True)
class TurnSettings:
    broker_url: str = EMBEDDED_BROKER
    ai_deadline_s: float = 5.0  # one gRPC Decide call; Expert thinks 0.5 s by default
    ai_retries: int = 5  # failed or untrusted answers retried before the Easy fallback
    retry_base_s: float = 0.2  # backoff: a random pause up to base * 2**attempt, capped
    retry_cap_s: float = 10.0
    sweep_every_s: float = 5.0  # how often the sweeper runs (Celery beat)
    sweep_after_s: float = 30.0  # an AI turn waited on this long is sent again
    broker_poll_s: float = 0.05  # the embedded broker's polling interval

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TurnSettings:
        env = os.environ if environ is None else environ
        default = cls()

        def number(name: str, value: float) -> float:
            return float(env.get(name, value))

        return cls(
            broker_url=env.get("CELERY_BROKER_URL") or default.broker_url,
            ai_deadline_s=number("PRESIDENT_AI_DEADLINE_MS", default.ai_deadline_s * 1000) / 1000,
            ai_retries=int(env.get("PRESIDENT_AI_RETRIES", default.ai_retries)),
            retry_base_s=number("PRESIDENT_AI_RETRY_BASE_MS", default.retry_base_s * 1000) / 1000,
            retry_cap_s=default.retry_cap_s,
            sweep_every_s=number("PRESIDENT_SWEEP_EVERY_S", default.sweep_every_s),
            sweep_after_s=number("PRESIDENT_SWEEP_AFTER_S", default.sweep_after_s),
            broker_poll_s=number("PRESIDENT_BROKER_POLL_MS", default.broker_poll_s * 1000) / 1000,
        )
