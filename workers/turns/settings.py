"""The turn pipeline's settings, read from the environment (``config.settings``, where
each one's default is declared)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from config.settings import setting

EMBEDDED_BROKER = "sqla+sqlite:///var/broker.db"  # a worker's broker when none is set


@dataclass(frozen=True)
class TurnSettings:
    broker_url: str
    ai_deadline_s: float  # one gRPC Decide call
    ai_retries: int  # failed or untrusted answers retried before the Easy fallback
    retry_base_s: float  # backoff: a random pause up to base * 2**attempt, capped
    sweep_every_s: float  # how often the sweeper runs (Celery beat)
    sweep_after_s: float  # an AI turn waited on this long is sent again
    broker_poll_s: float  # the embedded broker's polling interval
    retry_cap_s: float = 10.0  # (not a setting)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None,
                 **changes: Any) -> TurnSettings:
        """The settings in ``environ`` (default: the process's; ``{}``: the declared
        defaults); ``changes`` replace fields, for tests and benchmarks."""
        def number(name: str) -> float:
            return float(setting(name, environ) or 0)

        read = cls(
            broker_url=setting("CELERY_BROKER_URL", environ) or EMBEDDED_BROKER,
            ai_deadline_s=number("PRESIDENT_AI_DEADLINE_MS") / 1000,
            ai_retries=int(number("PRESIDENT_AI_RETRIES")),
            retry_base_s=number("PRESIDENT_AI_RETRY_BASE_MS") / 1000,
            sweep_every_s=number("PRESIDENT_SWEEP_EVERY_S"),
            sweep_after_s=number("PRESIDENT_SWEEP_AFTER_S"),
            broker_poll_s=number("PRESIDENT_BROKER_POLL_MS") / 1000,
        )
        return replace(read, **changes)
