"""The play page: the static files of ``web/play/``, served at ``/`` and ``/play/…``.

The page is a client of the public API like any other, so it stays out of the OpenAPI
spec (``enable_openapi=False``).
"""

from __future__ import annotations

from pathlib import Path

from apiflask import APIBlueprint
from flask import Response, abort, send_from_directory

from web import PLAY

FILES = PLAY
# Explicit types: mimetypes reads the host's /etc/mime.types, which may call .js
# application/javascript or nothing at all; browsers refuse modules of the wrong type.
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}

web = APIBlueprint("web", __name__, enable_openapi=False)


@web.get("/")
def index() -> Response:
    return _send("index.html")


@web.get("/play/<path:name>")
def asset(name: str) -> Response:
    return _send(name)


def _send(name: str) -> Response:
    mimetype = TYPES.get(Path(name).suffix)
    if mimetype is None:
        abort(404)
    return send_from_directory(FILES, name, mimetype=mimetype)  # 404 outside FILES
