"""The API's docs page at ``/docs``: Swagger UI (the files of the pinned
``flask-swagger-ui`` package) served by the service itself, initialised by a script file
of ours, so that it works under the Content-Security-Policy (``security``)."""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from apiflask import APIBlueprint
from flask import Response, abort, send_from_directory

from web import DOCS

PAGE = DOCS
SWAGGER_UI = Path(flask_swagger_ui.__file__).with_name("dist")
TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css",
         ".png": "image/png"}

docs = APIBlueprint("docs", __name__, url_prefix="/docs", enable_openapi=False)


@docs.get("")
def page() -> Response:
    return _send(PAGE, "index.html")


@docs.get("/docs.js")
def script() -> Response:
    return _send(PAGE, "docs.js")


@docs.get("/assets/<path:name>")
def asset(name: str) -> Response:
    return _send(SWAGGER_UI, name)


def _send(folder: Path, name: str) -> Response:
    mimetype = TYPES.get(Path(name).suffix)
    if mimetype is None:
        abort(404)
    return send_from_directory(folder, name, mimetype=mimetype, max_age=3600)
