"""Service errors, each with a stable code. Engine errors (``engine.errors``) pass
through unchanged; the HTTP layer maps both to problem+json responses."""

from __future__ import annotations


class ServiceError(Exception):
    code = "service_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameNotFound(ServiceError):
    code = "game_not_found"


class BadToken(ServiceError):
    """No seat of this game has that token (or none was given where one is needed)."""

    code = "bad_token"


class StaleVersion(ServiceError):
    """The action was made against an older version of the game."""

    code = "stale_version"


class BadRequest(ServiceError, ValueError):
    code = "bad_request"


class KeyReused(ServiceError):
    """An Idempotency-Key sent again with a different action."""

    code = "idempotency_key_reused"
