"""The bare Flask endpoints ``president bench api`` compares the service with: ``/hello``,
and ``/hello/db``, the same plus one round trip to the database (``SELECT 1`` on a pooled
autocommit connection, as the service's reads do): what any endpoint that reads the
database at all can reach on this machine."""

from __future__ import annotations

import os
from contextlib import closing

from flask import Flask
from sqlalchemy import create_engine

app = Flask("hello")
_database = os.environ.get("DATABASE_URL", "sqlite://").replace(
    "postgresql://", "postgresql+psycopg://", 1)
engine = create_engine(_database, isolation_level="AUTOCOMMIT")  # connects when first used


@app.get("/hello")
def hello() -> dict[str, str]:
    return {"hello": "world"}


@app.get("/hello/db")
def hello_db() -> dict[str, str]:
    with closing(engine.raw_connection()) as connection:
        cursor = connection.cursor()
        cursor.execute("SELECT 1")
        cursor.fetchall()
        cursor.close()
    return {"hello": "world"}


@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}
