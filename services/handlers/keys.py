"""Client keys: issued by an operator (``president keys``), sent by client applications
as ``X-API-Key``. The secret is shown once; only its SHA-256 is stored, and compared
as a whole (a 256-bit random secret needs no salt, and a lookup by its hash leaks
nothing of it)."""

from __future__ import annotations

import re
import secrets
import uuid
from datetime import datetime, timezone

from services.commands import CreateKey
from services.domain import SCOPES, ApiKey, hash_token
from services.errors import BadKey, BadQuota, BadRate, BadScope, KeyNotFound
from services.ports import UnitOfWork

PREFIX = "pk_"  # tells a client key from a seat token at a glance
RATE = re.compile(r"[1-9][0-9]{0,9}/(second|minute|hour|day)")


def create_key(cmd: CreateKey, uow: UnitOfWork) -> tuple[ApiKey, str]:
    """The key and its secret, which is shown now and never again."""
    unknown = set(cmd.scopes) - set(SCOPES)
    if unknown or not cmd.scopes:
        raise BadScope(f"scopes are among {', '.join(SCOPES)}, not {sorted(unknown) or 'none'}")
    if cmd.rate is not None and not RATE.fullmatch(cmd.rate):
        raise BadRate(f"a rate is a count per second, minute, hour or day (600/minute), "
                      f"not {cmd.rate!r}")
    for name in ("max_active_games", "ai_seconds_per_hour"):
        if (getattr(cmd, name) or 0) < 0:
            raise BadQuota(f"{name} is 0 or more (0: none), not {getattr(cmd, name)}")
    secret = PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        id=uuid.uuid4().hex,
        name=cmd.name,
        scopes=frozenset(cmd.scopes),
        rate=cmd.rate,
        max_active_games=cmd.max_active_games,
        ai_seconds_per_hour=cmd.ai_seconds_per_hour,
        created_at=datetime.now(timezone.utc),
    )
    with uow:
        uow.keys.add(key, hash_token(secret))
        uow.commit()
    return key, secret


def list_keys(uow: UnitOfWork) -> list[ApiKey]:
    with uow:
        return uow.keys.all()


def revoke_key(key_id: str, uow: UnitOfWork) -> None:
    with uow:
        if not uow.keys.revoke(key_id, datetime.now(timezone.utc)):
            raise KeyNotFound(f"no key {key_id!r}")
        uow.commit()


def authenticate(secret: str, uow: UnitOfWork) -> ApiKey:
    """The live key of that secret; ``BadKey`` for an unknown or revoked one."""
    with uow:
        key = uow.keys.by_hash(hash_token(secret))
    if key is None or key.revoked:
        raise BadKey("this X-API-Key opens nothing: unknown or revoked")
    return key
