"""Settings the API process applies: CORS origins for web clients, and the log format."""

from __future__ import annotations

import json
import logging
from typing import Iterator

import pytest
from sqlalchemy import Engine

from apps import inline_app
from config.logs import configure_logging

PREFLIGHT = {"Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "Authorization, Idempotency-Key"}


def _client(db: Engine):  # type: ignore[no-untyped-def]
    return inline_app(db).test_client()


def test_only_the_configured_origins_may_call_from_a_browser(
        db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PRESIDENT_CORS_ORIGINS", "https://play.example, https://m.example")
    client = _client(db)
    allowed = client.options("/v1/games", headers={"Origin": "https://play.example", **PREFLIGHT})
    assert allowed.headers["Access-Control-Allow-Origin"] == "https://play.example"
    assert "idempotency-key" in allowed.headers["Access-Control-Allow-Headers"].lower()
    other = client.options("/v1/games", headers={"Origin": "https://evil.example", **PREFLIGHT})
    assert "Access-Control-Allow-Origin" not in other.headers
    read = client.get("/v1/rules", headers={"Origin": "https://m.example"})
    assert read.headers["Access-Control-Allow-Origin"] == "https://m.example"


def test_no_origin_is_allowed_by_default(db: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRESIDENT_CORS_ORIGINS", raising=False)
    reply = _client(db).options("/v1/games", headers={"Origin": "https://play.example",
                                                      **PREFLIGHT})
    assert "Access-Control-Allow-Origin" not in reply.headers


@pytest.fixture
def restored_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_log_lines_follow_the_configured_format(
        fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        restored_logging: None) -> None:
    monkeypatch.setenv("PRESIDENT_LOG_FORMAT", fmt)
    monkeypatch.setenv("PRESIDENT_LOG_LEVEL", "WARNING")
    configure_logging()
    log = logging.getLogger("president.test")
    log.info("below the level")
    log.warning("turn %s played", "g1/3", extra={"game_id": "g1"})
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1
    if fmt == "json":
        record = json.loads(lines[0])
        assert record["message"] == "turn g1/3 played" and record["level"] == "WARNING"
        assert record["logger"] == "president.test" and record["game_id"] == "g1"
    else:
        assert lines[0].endswith("president.test: turn g1/3 played")
        with pytest.raises(json.JSONDecodeError):
            json.loads(lines[0])


@pytest.mark.parametrize("limit, status", [(500, 400), (999, 400), (0, 201), (1000, 201)])
def test_a_time_limit_is_none_or_a_second_at_least(db: Engine, limit: int, status: int) -> None:
    seats = [{"kind": "human"}] * 4
    reply = _client(db).post("/v1/games", json={"preset": "classic", "seats": seats,
                                                "turn_timeout_ms": limit, "pace_ms": 100})
    assert reply.status_code == status, reply.get_json()
    if status == 201:
        game = reply.get_json()["game"]
        assert game["turn_timeout_ms"] == (limit or None) and game["pace_ms"] == 100
    else:
        assert reply.get_json()["code"] == "invalid_body"
