"""The bare Flask endpoint ``president bench api`` compares the service with."""

from __future__ import annotations

from flask import Flask

app = Flask("hello")


@app.get("/hello")
def hello() -> dict[str, str]:
    return {"hello": "world"}


@app.get("/healthz")
def healthz() -> dict[str, str]:
    return {"status": "ok"}
