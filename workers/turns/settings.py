"""The turn pipeline's settings, from the environment (``services.settings``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from services.settings import setting

EMBEDDED_BROKER = "sqla+sqlite:///var/broker.db"


@dataclass(frozen=True)
class TurnSettings:
    broker_url: str = EMBEDDED_BROKER
    ai_deadline_s: float = 5.0  # one gRPC Decide call; Expert thinks 0.5 s by default
    ai_retries: int = 5  # failed or untrusted answers retried before the Easy fallback
    retry_base_s: float = 0.2  # backoff: a random pause up to base * 2**attempt, capped
    retry_cap_s: float = 10.0
    sweep_every_s: float = 5.0  # how often the sweeper runs (Celery beat)
    sweep_after_s: float = 60.0  # an AI turn waited on this long is sent again
    broker_poll_s: float = 0.05  # the embedded broker's polling interval

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TurnSettings:
        def number(name: str) -> float:
            return float(setting(name, environ) or 0)

        return cls(
            broker_url=setting("CELERY_BROKER_URL", environ) or EMBEDDED_BROKER,
            ai_deadline_s=number("PRESIDENT_AI_DEADLINE_MS") / 1000,
            ai_retries=int(number("PRESIDENT_AI_RETRIES")),
            retry_base_s=number("PRESIDENT_AI_RETRY_BASE_MS") / 1000,
            sweep_every_s=number("PRESIDENT_SWEEP_EVERY_S"),
            sweep_after_s=number("PRESIDENT_SWEEP_AFTER_S"),
            broker_poll_s=number("PRESIDENT_BROKER_POLL_MS") / 1000,
        )
