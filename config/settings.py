"""Every setting the system reads from its environment, in one table.

Code reads a setting through ``setting(NAME)`` only, so this table is complete by
construction (a name not declared here raises ``KeyError``); docs/configuration.md and
the deploy files are checked against it by tests.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Setting:
    name: str
    default: str | None  # None: unset unless given
    description: str


SETTINGS = (
    Setting("DATABASE_URL", "sqlite:///var/president.db",
            "SQLAlchemy URL of the game database (`postgresql://…` in production)"),
    Setting("CELERY_BROKER_URL", None,
            "Celery broker: `redis://…` in production, `sqla+sqlite:///var/broker.db` for "
            "the embedded one (what `make run` uses); unset: AI turns are played in the "
            "API process, after each request has answered"),
    Setting("PRESIDENT_AI_ENGINES", "",
            "AI engines by name, `name=host:port,…`: the gRPC target per level (default: "
            "every level on 127.0.0.1:50051) and any third-party bot"),
    Setting("PRESIDENT_AI_TLS_ROOTS", None,
            "a PEM file of the certificates that engines named `tls://host:port` in "
            "`PRESIDENT_AI_ENGINES` are checked against; unset: the system's"),
    Setting("PRESIDENT_AI_WORKER_PROCESSES", "1",
            "processes of one gRPC AI worker, sharing its port (about one per core)"),
    Setting("PRESIDENT_AI_MAX_CALLS", "10000",
            "calls one AI worker process answers before it is replaced (up to a tenth "
            "more, at random; its replacement serves first): bounds its memory; 0: never"),
    Setting("PRESIDENT_AI_MAX_MS", "2000",
            "an AI worker's most thinking time per decision, whatever the request asks"),
    Setting("PRESIDENT_AI_MAX_SIMULATIONS", "20000",
            "an AI worker's most simulations per decision, whatever the request asks"),
    Setting("PRESIDENT_AI_REFLECTION", "on",
            "an AI worker's gRPC reflection: `on`, or `off` (what `deploy/` sets)"),
    Setting("PRESIDENT_AI_DEADLINE_MS", "5000", "deadline of one gRPC decision"),
    Setting("PRESIDENT_AI_RETRIES", "5",
            "retries of a failed or untrusted AI answer before the Easy fallback plays"),
    Setting("PRESIDENT_AI_RETRY_BASE_MS", "200",
            "backoff: a random pause up to base × 2^attempt (capped at 10 s)"),
    Setting("PRESIDENT_AI_PACE_MS", "0",
            "pause before each AI move, for games created without `pace_ms`"),
    Setting("PRESIDENT_TURN_TIMEOUT_MS", None,
            "human seats' time to act, for games created without `turn_timeout_ms`; unset: "
            "no limit"),
    Setting("PRESIDENT_SWEEP_EVERY_S", "1", "how often Celery beat runs the sweeper"),
    Setting("PRESIDENT_TURN_EXPIRES_S", "2",
            "a turn's message not started this long after it is due is dropped; the sweeper "
            "sends the turn again once this and the AI deadline have passed"),
    Setting("PRESIDENT_BROKER_POLL_MS", "50", "polling interval of the embedded broker"),
    Setting("PRESIDENT_HINTS_RATE_SEAT", "30/hour",
            "hints a seat may ask for (`POST /v1/games/{id}/hint`), per seat"),
    Setting("PRESIDENT_HINTS_RATE_KEY", "600/hour",
            "hints all the seats of a key's games may ask for together"),
    Setting("PRESIDENT_REVIEWS_RATE_SEAT", "10/hour",
            "round reviews a seat may ask for (`POST /v1/games/{id}/rounds/{n}/review`)"),
    Setting("PRESIDENT_REVIEWS_RATE_KEY", "300/hour",
            "round reviews a key and the seats of its games may ask for together"),
    Setting("PRESIDENT_REVIEW_BUDGET_MS", "250",
            "Expert's thinking time for each decision a review weighs"),
    Setting("PRESIDENT_REVIEW_EXPIRES_S", "60",
            "a review's task not started this long after it was sent is dropped, and the "
            "sweeper sends the review again"),
    Setting("PRESIDENT_INLINE_AI_WORKERS", "1",
            "with no broker: the processes in which AI levels think (AI seats, hints, "
            "reviews), per API worker, niced below it"),
    Setting("PRESIDENT_INLINE_AI_QUEUE", "4",
            "with no broker: the AI calls waiting for those processes, per API worker; a "
            "hint past that is refused (`503 ai_busy`, `Retry-After`)"),
    Setting("PRESIDENT_RATING_POOLS", "preset-players",
            "which rated games share a rating pool: preset-players (a preset and a player "
            "count), preset, or one (all together)"),
    Setting("PRESIDENT_RATING_SEASON", None,
            "a season's name, suffixed to every pool (`classic-4.2027`): ratings start "
            "again with a new one; unset: no seasons"),
    Setting("PRESIDENT_LEADERBOARD_MIN_ROUNDS", "5",
            "the rated rounds a player needs to appear on a leaderboard"),
    Setting("PRESIDENT_TAKEOVER_AFTER_TIMEOUTS", "3",
            "a human seat that lets its time run out this many turns in a row is taken over "
            "by the game's takeover AI level for the rest of the series; 0: never"),
    Setting("PRESIDENT_CHANGE_FEED_URL", None,
            "PostgreSQL: where each process listens for moves (the change feed) and its "
            "outbox relay holds the lead; unset: `DATABASE_URL`. Behind a transaction-mode "
            "pooler (PgBouncer), point it at PostgreSQL itself, which LISTEN and a "
            "session's advisory lock need; `off`: every read asks the database (the relay "
            "then uses `DATABASE_URL`)"),
    Setting("PRESIDENT_MIGRATION_LOCK_TIMEOUT_S", "5",
            "how long a migration waits for a table lock on PostgreSQL before it gives up "
            "(and changes nothing): never queued behind a long transaction with every "
            "request queued behind it"),
    Setting("PRESIDENT_CACHE_MB", "64",
            "what each API worker keeps in memory between requests, at most: the game states "
            "it has read (3/4) and the views it has rendered (1/4)"),
    Setting("PRESIDENT_STREAMS_PER_SEAT", "2",
            "event streams and long polls a seat holds at once on its own game (its own: "
            "spectators never take them), per API worker"),
    Setting("PRESIDENT_STREAMS_PER_GAME", "32",
            "spectators' event streams and long polls open at once on one game, per API "
            "worker"),
    Setting("PRESIDENT_STREAMS_PER_CLIENT", "8",
            "spectators' event streams and long polls (and ticket watches) open at once per "
            "client (its key, else its address), per API worker"),
    Setting("PRESIDENT_STREAM_MAX_S", "600",
            "an event stream's longest life; the client resumes with `Last-Event-ID`"),
    Setting("PRESIDENT_LOG_FORMAT", "text", "`text`, or `json` (one object per line) for "
            "production"),
    Setting("PRESIDENT_LOG_LEVEL", "INFO", "log level of every process"),
    Setting("PRESIDENT_AUTH", "open",
            "`open`: no client key needed (the embedded default); `keys`: every call but "
            "the probes, the rules, the docs, the play page and a seat token's own calls "
            "needs an `X-API-Key` (what `deploy/` sets)"),
    Setting("PRESIDENT_RATE_STORAGE", "memory://",
            "where the rate limits count: `memory://` (each process its own: n API "
            "processes let n times a limit through), `redis://…` (shared by every process: "
            "what `deploy/` sets), `off`: no limits"),
    Setting("PRESIDENT_RATE_KEY", "6000/minute",
            "requests per client key, unless the key has its own (`keys create --rate`)"),
    Setting("PRESIDENT_RATE_TOKEN", "600/minute",
            "requests per seat token sent without a client key (counted under the "
            "client address too, and under the key owning the token's game)"),
    Setting("PRESIDENT_RATE_ANONYMOUS", "1200/minute",
            "requests per client address without a client key: a ceiling over all its "
            "anonymous and seat-token calls"),
    Setting("PRESIDENT_QUOTA_GAMES_KEY", "1000",
            "games under way a client key may hold, unless it has its own quota "
            "(`keys create --max-active-games`)"),
    Setting("PRESIDENT_QUOTA_GAMES_ANONYMOUS", "20",
            "games under way a client address may hold without a key"),
    Setting("PRESIDENT_QUOTA_AI_SECONDS_KEY", "3600",
            "AI thinking time a client key's games may use an hour (an Expert decision "
            "takes about ten times a Hard one), unless the key has its own "
            "(`keys create --ai-seconds-per-hour`); past it, games with AI seats are refused "
            "and those under way play the Easy level until the hour frees up"),
    Setting("PRESIDENT_QUOTA_AI_SECONDS_ANONYMOUS", "600",
            "AI thinking time a client address's games may use an hour, without a key"),
    Setting("PRESIDENT_TRUSTED_PROXIES", "0",
            "proxies in front of the API whose `X-Forwarded-For` names the client "
            "(`deploy/`: 1, nginx); 0: the connection's address is the client's"),
    Setting("PRESIDENT_CORS_ORIGINS", "",
            "web origins allowed to call the API from a browser, comma-separated (`*`: any)"),
    Setting("PRESIDENT_METRICS_PORT", None,
            "`president api`: a second port the workers listen on, the only one `/metrics` "
            "answers on (`deploy/`: 9100, which no proxy or Service exposes); unset: the "
            "API's own port"),
    Setting("PROMETHEUS_MULTIPROC_DIR", None,
            "a folder for prometheus-client's multi-process metrics (several API workers)"),
    Setting("PRESIDENT_SECRET_KEY", None,
            "Fernet keys, comma-separated, that encrypt webhook signing secrets at rest: the "
            "first encrypts, each one decrypts (to rotate, put the new one first); unset: a "
            "key made on first use in `PRESIDENT_VAR_DIR/secret.key` (one machine only: "
            "`deploy/` sets it from a Secret)"),
    Setting("PRESIDENT_WEBHOOK_RETRY_S", "5,300,1800,7200,18000,36000,36000",
            "pauses between a webhook message's attempts, in seconds (about a day in all); "
            "after the last, the message has failed"),
    Setting("PRESIDENT_WEBHOOK_TIMEOUT_S", "5",
            "how long an endpoint has to answer one attempt"),
    Setting("PRESIDENT_WEBHOOK_DISABLE_AFTER_S", "432000",
            "an endpoint whose every attempt has failed this long is disabled"),
    Setting("PRESIDENT_WEBHOOKS_PER_KEY", "10", "webhook endpoints a client key may have"),
    Setting("PRESIDENT_WEBHOOK_KEEP_S", "259200",
            "how long delivered and failed webhook messages (and their attempts) are kept"),
    Setting("PRESIDENT_WEBHOOK_PRIVATE_URLS", "off",
            "`off`: webhook URLs that resolve to loopback, private, link-local or reserved "
            "addresses are refused (server-side request forgery); `loopback`: loopback "
            "allowed (one machine, tests); `on`: all allowed (a private network)"),
    Setting("PRESIDENT_HOST", "127.0.0.1", "`president up`: the address its servers bind"),
    Setting("PRESIDENT_API_PORT", "8000", "`president up`: the API's port"),
    Setting("PRESIDENT_AI_PORT", "50051", "`president up`: the gRPC AI worker's port"),
    Setting("PRESIDENT_VAR_DIR", "var",
            "`president up`: folder of the SQLite files, beat's schedule and the lock"),
)

_BY_NAME = {s.name: s for s in SETTINGS}


def setting(name: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The setting's value from the environment, else its default."""
    declared = _BY_NAME[name]  # KeyError: declare it in SETTINGS first
    env = os.environ if environ is None else environ
    value = env.get(name)
    return declared.default if value is None or value == "" else value


def defaulted(name: str, environ: Mapping[str, str] | None = None) -> str:
    """``setting`` for a setting declared with a default: never None."""
    value = setting(name, environ)
    if value is None:
        raise KeyError(f"{name} is declared without a default: read it with setting()")
    return value
