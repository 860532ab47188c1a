"""The turn pipeline's settings, read from the environment (``config.settings``, where
each one's default is declared)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

from config.settings import setting

EMBEDDED_BROKER = "sqla+sqlite:///var/broker.db"  # a worker's broker when none is set

# Each field's setting and the factor from the setting's unit to the field's.
_FROM_ENV = {
    "ai_deadline_s": ("PRESIDENT_AI_DEADLINE_MS", 1 / 1000),
    "ai_retries": ("PRESIDENT_AI_RETRIES", 1),
    "retry_base_s": ("PRESIDENT_AI_RETRY_BASE_MS", 1 / 1000),
    "sweep_every_s": ("PRESIDENT_SWEEP_EVERY_S", 1),
    "sweep_after_s": ("PRESIDENT_SWEEP_AFTER_S", 1),
    "broker_poll_s": ("PRESIDENT_BROKER_POLL_MS", 1 / 1000),
}


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
        """The settings in ``environ`` (default: the process's); ``{}``: the declared
        defaults. ``changes`` replace fields, for tests and benchmarks."""
        values: dict[str, Any] = {
            field: float(setting(name, environ) or 0) * factor
            for field, (name, factor) in _FROM_ENV.items()}
        values["ai_retries"] = int(values["ai_retries"])
        read = cls(broker_url=setting("CELERY_BROKER_URL", environ) or EMBEDDED_BROKER,
                   **values)
        return replace(read, **changes)


assert {f.name for f in fields(TurnSettings)} == {"broker_url", "retry_cap_s", *_FROM_ENV}
