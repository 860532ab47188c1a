"""docs/api.md's table of error codes is the service's: every code an error can carry,
with the status the HTTP layer gives it, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import PresidentError
from services.api.problems import HTTP_CODES, REQUEST_CODES, STATUS
from services.errors import BadRequest, ServiceError

API = Path(__file__).resolve().parents[3] / "docs" / "api.md"
ABSTRACT = {PresidentError, ServiceError, BadRequest}  # never raised as such


def _all(cls: type[Exception]) -> list[type[Exception]]:
    return [cls, *(sub for child in cls.__subclasses__() for sub in _all(child))]


def _served() -> dict[str, int]:
    codes = {cls.code: next(status for kind, status in STATUS if issubclass(cls, kind))
             for cls in _all(PresidentError) + _all(ServiceError)
             if cls not in ABSTRACT}  # type: ignore[attr-defined]
    return {**codes, **{code: status for status, code in HTTP_CODES.items()},
            **REQUEST_CODES}


def _documented() -> dict[str, int]:
    rows = re.findall(r"^\| `([a-z_]+)` \| (\d{3}) \|", API.read_text(), re.MULTILINE)
    assert len(rows) == len(dict(rows)), "a code is listed twice"
    return {code: int(status) for code, status in rows}


def test_every_error_code_is_documented_with_its_status_and_no_other() -> None:
    assert _documented() == _served()

