"""Service errors, each with a stable code. Engine errors (``engine.errors``) pass
through unchanged; the entry points map both (HTTP: ``services.api.problems``)."""

from __future__ import annotations


class ServiceError(Exception):
    code = "service_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GameNotFound(ServiceError):
    code = "game_not_found"


class RoundNotFound(GameNotFound):
    """The game exists; that round of it has not been played."""

    code = "round_not_found"


class BadToken(ServiceError):
    """No seat of this game has that token (or none was given where one is needed)."""

    code = "bad_token"


class KeyRequired(ServiceError):
    """This call needs a client key (``X-API-Key``)."""

    code = "key_required"


class BadKey(ServiceError):
    """No live client key is that secret (unknown, or revoked)."""

    code = "bad_key"


class MissingScope(ServiceError):
    """The client key may not do this."""

    code = "missing_scope"


class QuotaExceeded(ServiceError):
    """The caller holds as many games under way as it may."""

    code = "quota_exceeded"


class GameSeeded(ServiceError):
    """The game's deal was chosen by its creator (``seeded``): nobody else may sit in it."""

    code = "game_seeded"


class Unavailable(ServiceError):
    """The database failed for a moment (a lost connection, a restart, a deadlock) and
    kept failing through the store's retries: nothing was changed, try again."""

    code = "unavailable"


class AiBusy(Unavailable):
    """Every place of this process's AI pool is taken (no broker: the levels think on
    this machine): nothing was changed, try again."""

    code = "ai_busy"


class TooManyStreams(ServiceError):
    """As many event streams or long polls are open as a game or a client may hold."""

    code = "too_many_streams"


class KeyNotFound(ServiceError):
    code = "key_not_found"


class StaleVersion(ServiceError):
    """The action was made against an older version of the game."""

    code = "stale_version"


class BadRequest(ServiceError, ValueError):
    """The request cannot be read as it is (each case has a code of its own)."""

    code = "bad_request"


class InvalidSeat(BadRequest):
    """A seat is human, or AI with an engine this service knows."""

    code = "invalid_seat"


class OptionsContradictSeats(BadRequest):
    """A rules option says otherwise than the seats (``players``) or ``rounds``."""

    code = "options_contradict_seats"


class SeedNotAllowed(BadRequest):
    """A seed was sent for a game somebody other than its creator could sit in: its deal
    is the service's to draw."""

    code = "seed_not_allowed"


class BadQuota(BadRequest):
    """A key's quota is a count, 0 or more."""

    code = "bad_quota"


class BadCursor(BadRequest):
    code = "bad_cursor"


class BadIdempotencyKey(BadRequest):
    code = "bad_idempotency_key"


class BadEventNumber(BadRequest):
    """``after`` or ``Last-Event-ID`` is not an event number."""

    code = "bad_event_number"


class BadStatus(BadRequest):
    code = "bad_status"


class BadScope(BadRequest):
    code = "bad_scope"


class BadRate(BadRequest):
    code = "bad_rate"


class BadWebhook(BadRequest):
    """A webhook's URL or event types cannot be used (each case says why)."""

    code = "bad_webhook"


class UrlRefused(BadWebhook):
    """A webhook URL resolving to a loopback, private, link-local or reserved address
    (server-side request forgery), unless the settings allow it."""

    code = "url_refused"


class WebhookNotFound(ServiceError):
    code = "webhook_not_found"


class TooManyWebhooks(ServiceError):
    """The key has as many endpoints as it may."""

    code = "too_many_webhooks"


class KeyReused(ServiceError):
    """An Idempotency-Key sent again with a different action or version."""

    code = "idempotency_key_reused"


class InviteNotFound(ServiceError):
    """No game has that invite code (unknown, or rotated since)."""

    code = "invite_not_found"


class PlayerNotFound(ServiceError):
    """The key has named no player so."""

    code = "player_not_found"


class NotHost(ServiceError):
    """Only the game's owner key, or a seat made human at its creation, may do this."""

    code = "not_host"


class GameFull(ServiceError):
    """Every seat of the game is taken."""

    code = "game_full"


class NotWaiting(ServiceError):
    """The game is not waiting for players any more (started, over or cancelled)."""

    code = "game_not_waiting"


class NotStarted(ServiceError):
    """The game waits for players (or was cancelled): nobody plays yet."""

    code = "game_not_started"


class NotActive(ServiceError):
    """The game is over or cancelled: a seat cannot leave it."""

    code = "game_not_active"


class SeriesNotOver(ServiceError):
    """A rematch comes once the series is over."""

    code = "series_not_over"


class BadPlayer(BadRequest):
    """A player id is 1 to 64 printable characters, a name 1 to 64."""

    code = "bad_player"


class TicketNotFound(ServiceError):
    code = "ticket_not_found"


class TicketExists(ServiceError):
    """The player has a live ticket already: one at a time."""

    code = "ticket_exists"


class TicketNotWaiting(ServiceError):
    """The ticket is matched (or cancelled) already."""

    code = "ticket_not_waiting"


class HintsForbidden(ServiceError):
    """The game was made with ``hints: false`` (reviews too, until the series is over),
    or this service runs no AI adviser."""

    code = "hints_forbidden"


class RoundNotOver(ServiceError):
    """A round under way (or not yet dealt) cannot be reviewed."""

    code = "round_not_over"


class ReviewNotFound(GameNotFound):
    """Nobody asked for that round's review yet."""

    code = "review_not_found"


class BadLevel(BadRequest):
    """No AI level of that name gives hints."""

    code = "bad_level"
