"""The API under test: the app factory on a fresh database (SQLite, and PostgreSQL when
configured), AI seats played inline."""

from __future__ import annotations

from typing import Iterator

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine

from apps import inline_app


@pytest.fixture
def client(db: Engine) -> Iterator[FlaskClient]:
    with inline_app(db).test_client() as c:
        yield c


