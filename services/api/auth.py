"""Who is calling: a client key (``X-API-Key``), a seat token's own call, or, in open
mode, anybody. ``PRESIDENT_AUTH``: ``open`` (the embedded default: no key needed) or
``keys`` (what ``deploy/`` sets: every call but the probes, the rules, the docs, the play
page and a seat token's own calls needs a key)."""

from __future__ import annotations

import time
from typing import Callable, NamedTuple

from flask import request

from services.domain import ApiKey, Caller, hash_token, origin_of
from services.errors import BadKey, KeyRequired
from services.handlers.keys import authenticate
from services.ports import UnitOfWork
from services.versioned import VersionedCache

KEY_HEADER = "X-API-Key"
MODES = ("open", "keys")
TRUST_S = 5.0  # a key found live is trusted this long: a revocation takes effect within it


def bearer_token() -> str | None:
    """The token of a well-formed ``Authorization: Bearer <token>`` header, if any."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class Quota(NamedTuple):
    games: int  # games under way at once
    ai_seconds_per_hour: int  # AI thinking time its games may use an hour


def _own(quota: int | None, default: int) -> int:
    """A key's own quota (0: none at all), else the settings' default."""
    return default if quota is None else quota


class Keys:
    """Authenticates client keys, keeping each live one a few seconds (one lookup per key
    every ``TRUST_S``, not one per request)."""

    def __init__(self, uow_factory: Callable[[], UnitOfWork], mode: str,
                 key_quota: Quota, anonymous_quota: Quota) -> None:
        """The quotas of a key (unless it has its own) and of a client address."""
        if mode not in MODES:
            raise ValueError(f"PRESIDENT_AUTH is one of {', '.join(MODES)}, not {mode!r}")
        self._uow = uow_factory
        self.required = mode == "keys"
        self._key_quota, self._anonymous_quota = key_quota, anonymous_quota
        self._live: VersionedCache[str, tuple[ApiKey, float]] = VersionedCache(1024)
        self._rates: VersionedCache[str, str | None] = VersionedCache(1024)  # by key id

    def caller(self, token_call: bool) -> Caller:
        """The request's caller. ``token_call``: the request carries a seat token, which
        is credential enough for that seat's own calls."""
        secret = request.headers.get(KEY_HEADER)
        if secret is not None:  # (sent empty: a key that opens nothing)
            key = self._key(secret)
            return Caller(key, max_active_games=_own(key.max_active_games,
                                                     self._key_quota.games),
                          ai_seconds_per_hour=_own(key.ai_seconds_per_hour,
                                                   self._key_quota.ai_seconds_per_hour))
        if self.required and not token_call:
            raise KeyRequired(f"this call needs a client key: send it as {KEY_HEADER}")
        return Caller(origin=origin_of(request.remote_addr or ""),
                      max_active_games=self._anonymous_quota.games,
                      ai_seconds_per_hour=self._anonymous_quota.ai_seconds_per_hour)

    def client(self) -> tuple[str, ApiKey | None]:
        """Who the request counts against, for rate limits and spectators' streams: its
        live client key, else its address (``kind:name``; a token buys no count of its
        own), and the key."""
        secret = request.headers.get(KEY_HEADER)
        key = None if secret is None else self.peek(secret)
        if key is not None:
            return f"key:{key.id}", key
        return f"address:{request.remote_addr}", None

    def peek(self, secret: str) -> ApiKey | None:
        """The live key of that secret, or None (the rate limits' bucket: refusing is the
        route's business)."""
        try:
            return self._key(secret)
        except BadKey:
            return None

    def _key(self, secret: str) -> ApiKey:
        digest, now = hash_token(secret), time.monotonic()
        held = self._live.get(digest)
        if held is not None and held[1] > now:
            return held[0]
        key = authenticate(secret, self._uow())  # BadKey: unknown or revoked
        self._live.put(digest, (key, now + TRUST_S))
        self._rates.put(key.id, key.rate)
        return key

    def rate_of(self, key_id: str) -> str | None:
        """The own rate of key ``key_id`` as last seen here (None: the default's, or not
        seen: a game's seat tokens count under their owner's key at its rate)."""
        return self._rates.get(key_id)
