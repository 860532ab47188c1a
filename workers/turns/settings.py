"""The turn pipeline's settings, read from the environment (``config.settings``, where
each one's default is declared)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from config.settings import setting

EMBEDDED_BROKER = "sqla+sqlite:///var/broker.db"  # a worker's broker when none is set
SWEEP_MARGIN_S = 0.5
# The workers' reconnection to a restarted Redis: a message handed over in it may be taken
# by a consumer's channel that is then let go of, and lost with it (the chaos suite saw
# some of the turns due in a restarted Redis's first 0.1 s wait 5 s for the sweeper).
RECONNECT_S = 1.0


@dataclass(frozen=True)
class TurnSettings:
    broker_url: str
    ai_deadline_s: float  # one gRPC Decide call
    ai_retries: int  # failed or untrusted answers retried before the Easy fallback
    retry_base_s: float  # backoff: a random pause up to base * 2**attempt, capped
    sweep_every_s: float  # how often the sweeper runs (Celery beat)
    turn_expires_s: float  # a turn's message not started this long after it is due: dropped
    broker_poll_s: float  # the embedded broker's polling interval
    take_over_after: int  # a human's time limits in a row before the AI takes over (0: never)
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
            turn_expires_s=number("PRESIDENT_TURN_EXPIRES_S"),
            broker_poll_s=number("PRESIDENT_BROKER_POLL_MS") / 1000,
            take_over_after=int(number("PRESIDENT_TAKEOVER_AFTER_TIMEOUTS")),
        )
        return replace(read, **changes)

    def sweep_after_now(self, broker_up_s: float | None) -> float:
        """``sweep_after_s``, or less just after the broker restarted (``broker_up_s``,
        in whole seconds as Redis counts them): a turn due before it started had its
        message in the Redis before, which kept nothing on disk, and once a copy
        started before the restart has had its deadline none is live; a second later,
        the turns due in its first ``RECONNECT_S`` too. (A copy a worker had already
        taken in, or one handed over in that second and not lost, may run beside the
        one sent again; it plays nothing: the version.)"""
        settled = self.ai_deadline_s + SWEEP_MARGIN_S
        if broker_up_s is None or broker_up_s < settled:
            return self.sweep_after_s
        return min(self.sweep_after_s, max(settled, broker_up_s - RECONNECT_S))

    @property
    def sweep_after_s(self) -> float:
        """How long after it was due the sweeper sends a turn again: once its message
        has expired unstarted, or its started copy has had its decision's deadline (and
        a margin for the write). No copy sent before can still be live."""
        return self.turn_expires_s + self.ai_deadline_s + SWEEP_MARGIN_S
